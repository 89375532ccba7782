// Outside tests/kernels/compiler: candidates of that task must not be able to include this.
#define OUTSIDE_OFFSET 0.0f
