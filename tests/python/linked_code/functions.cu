// Foreign device functions with numba-cuda's convention (the result through the first
// argument, 0 returned), as in numba-cuda's documentation.
#include "offset.h"

extern "C" __device__ int saxpy(float* result, float a, float x, float y) {
  *result = a * x + y + OFFSET;
  return 0;
}

extern "C" __device__ int sum_reduce(float* result, float* array, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += array[i];
  *result = (float)sum;
  return 0;
}
