// The registry of compiled-in backends: one line per backend, keyed by the language it runs
// (task/languages.h). Adding a backend is a folder under src/backend/ and a line here.
#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/opencl/opencl_backend.h"
#include "backend/python/python_backend.h"

namespace kforge {
namespace {

struct BackendFactory {
  Language language;
  std::unique_ptr<Backend> (*make)();
};

// In the order `kforge doctor` lists them.
const BackendFactory kBackends[] = {
    {Language::Cuda, [] { return make_cuda_backend(); }},
    {Language::OpenCL, [] { return make_opencl_backend(); }},
    {Language::Triton, [] { return make_python_backend(Language::Triton); }},
    {Language::PyTorch, [] { return make_python_backend(Language::PyTorch); }},
};

const BackendFactory* factory_for(Language language) {
  for (const auto& factory : kBackends)
    if (factory.language == language) return &factory;
  return nullptr;
}

}  // namespace

bool has_backend(Language language) { return factory_for(language) != nullptr; }

std::unique_ptr<Backend> make_backend(Language language) {
  const BackendFactory* factory = factory_for(language);
  return factory ? factory->make() : nullptr;
}

std::unique_ptr<Backend> require_backend(Language language) {
  if (auto backend = make_backend(language)) return backend;
  std::string registered;
  for (const auto& factory : kBackends) registered += (registered.empty() ? "" : " ") + to_string(factory.language);
  throw EnvironmentError("no backend for " + language_facts(language).display_name + " (" + to_string(language) +
                         ") in this build; backends: " + registered);
}

std::vector<std::unique_ptr<Backend>> all_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  for (const auto& factory : kBackends) backends.push_back(factory.make());
  return backends;
}

}  // namespace kforge
