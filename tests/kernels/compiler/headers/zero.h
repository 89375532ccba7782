#define ZERO 0.0f
