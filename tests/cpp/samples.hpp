// Kernel IR written by hand, shared by the C++ tests.
#pragma once

namespace cudajit::testing {

// The saxpy example of docs/dev/kernel-ir.md.
inline constexpr const char* kSaxpyIr = R"((module "examples/saxpy.py"
 (func@2:0 saxpy (params a x y out)
  (assign@3:4 (name@3:4 i) (call@3:8 cuda.grid (int@3:18 1)))
  (if@4:4 (compare@4:7 (name@4:7 i) < (attr@4:11 (name@4:11 out) size))
   (block@5:8 (assign@5:8 (subscript@5:8 (name@5:8 out) (name@5:12 i))
     (binop@5:17 + (binop@5:17 * (name@5:17 a) (subscript@5:21 (name@5:21 x) (name@5:23 i)))
                   (subscript@5:28 (name@5:28 y) (name@5:30 i)))))
   (block@4:4))))
)";

}  // namespace cudajit::testing
