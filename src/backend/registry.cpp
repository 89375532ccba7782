#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/opencl/opencl_backend.h"
#include "backend/python/python_backend.h"

namespace kforge {

// nullptr for languages without a backend yet (HIP) or that are not kernel languages.
std::unique_ptr<Backend> make_backend(Language language) {
  switch (language) {
    case Language::Cuda:
      return make_cuda_backend();
    case Language::OpenCL:
      return make_opencl_backend();
    case Language::Triton:
    case Language::PyTorch:
      return make_python_backend(language);
    default:
      return nullptr;
  }
}

std::vector<std::unique_ptr<Backend>> all_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(make_cuda_backend());
  backends.push_back(make_opencl_backend());
  backends.push_back(make_python_backend(Language::Triton));
  backends.push_back(make_python_backend(Language::PyTorch));
  return backends;
}

}  // namespace kforge
