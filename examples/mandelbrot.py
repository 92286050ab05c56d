#!/usr/bin/env python3
"""The Mandelbrot set with complex arithmetic in the kernel: each thread
iterates z = z * z + c for one pixel and records how long |z| stays <= 2.

Run it as a script: `python examples/mandelbrot.py`. It prints the set as
text, checks the iteration counts against NumPy and exits non-zero on a
mismatch.
"""

import sys

import numpy as np

import cudajit as cuda

MAX_ITER = 100


@cuda.jit(device=True)
def escape_time(c, max_iter):
    z = 0j
    for n in range(max_iter):
        if abs(z) > 2.0:
            return n
        z = z * z + c
    return max_iter


@cuda.jit
def mandelbrot(xmin, xmax, ymin, ymax, counts):
    col, row = cuda.grid(2)
    height, width = counts.shape
    if row < height and col < width:
        c = complex(xmin + (xmax - xmin) * col / width, ymin + (ymax - ymin) * row / height)
        counts[row, col] = escape_time(c, MAX_ITER)


def mandelbrot_numpy(xmin, xmax, ymin, ymax, height, width):
    cols = np.arange(width)
    rows = np.arange(height)
    c = (xmin + (xmax - xmin) * cols / width)[None, :] + 1j * (
        ymin + (ymax - ymin) * rows / height
    )[:, None]
    z = np.zeros_like(c)
    counts = np.full(c.shape, MAX_ITER, np.int32)
    escaped = np.zeros(c.shape, bool)
    for n in range(MAX_ITER):
        newly = ~escaped & (np.abs(z) > 2.0)
        counts[newly] = n
        escaped |= newly
        z = np.where(escaped, z, z * z + c)
    return counts


def device_name():
    """The device kernels run on: a GPU when one is present, else the cpu device."""
    device = cuda.get_current_device()
    return f"{device.kind} ({device.name})"


def main():
    height, width = 200, 300
    window = (-2.0, 1.0, -1.25, 1.25)
    counts = np.zeros((height, width), np.int32)
    block = (16, 16)
    grid = ((width + 15) // 16, (height + 15) // 16)
    print(
        f"mandelbrot: {height}x{width} pixels, up to {MAX_ITER} iterations of z = z*z + c"
        " (complex128)"
    )
    print(f"  launch [{grid}, {block}] on device: {device_name()}")
    mandelbrot[grid, block](*window, counts)

    for row in range(0, height, 10):  # a coarse picture of the set
        print(
            "  "
            + "".join("#" if counts[row, col] == MAX_ITER else "." for col in range(0, width, 5))
        )

    expected = mandelbrot_numpy(*window, height, width)
    differing = int(np.count_nonzero(counts != expected))
    # A point right on the boundary may take one iteration more or less if the
    # compiler contracts z*z + c into fused multiply-adds.
    ok = differing <= counts.size // 1000
    print(
        f"  {np.count_nonzero(counts == MAX_ITER)} points in the set; "
        f"{differing} of {counts.size} counts differ from numpy: {'OK' if ok else 'MISMATCH'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
