#include "backend/python/python_backend.h"

#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>

#include "backend/python/python_env.h"
#include "util/files.h"
#include "util/hash.h"

namespace kforge {
namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command, returns its exit status and combined output.
int run_capture(const std::string& command, std::string& output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char chunk[4096];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) output.append(chunk, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// "FILE:LINE: error: SyntaxError: ..." from py_compile's traceback, so the first error line
// that reports show says where and what.
std::string summary_line(const std::string& log, const std::string& source_name) {
  std::string line_number = "?";
  const auto at = log.find(", line ");
  if (at != std::string::npos) {
    const auto begin = at + 7;
    line_number = log.substr(begin, log.find_first_not_of("0123456789", begin) - begin);
  }
  std::string last = log;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
  return source_name + ":" + line_number + ": error: " + last;
}

class PythonBackend final : public Backend {
 public:
  explicit PythonBackend(Language language) : language_(language) {}
  std::string name() const override { return to_string(language_); }
  Language language() const override { return language_; }

  Availability probe() override {
    Availability availability;
    const std::string module = language_facts(language_).content_marker->marker;  // "triton", "torch"
    // One line: the module's version, then the device the worker will use.
    const std::string script = "import " + module + ", torch; print(" + module +
                               ".__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "
                               "'cpu (' + ('Triton interpreter' if '" + module + "' == 'triton' else 'eager') + ')')";
    std::string output;
    availability.usable =
        run_capture(shell_quote(python_interpreter().string()) + " -c " + shell_quote(script), output) == 0;
    while (!output.empty() && output.back() == '\n') output.pop_back();
    if (!availability.usable) {
      availability.reason = python_interpreter().string() + " cannot import " + module +
                            "; run scripts/python-deps.sh or set KFORGE_PYTHON";
      return availability;
    }
    const auto space = output.find(' ');
    availability.reason = python_interpreter().string() + ": " + module + " " + output.substr(0, space);
    DeviceInfo device;
    device.backend = name();
    device.name = space == std::string::npos ? "cpu" : output.substr(space + 1);
    device.arch = device.name.rfind("cpu", 0) == 0 ? "cpu" : "cuda";
    device.is_gpu = device.arch == "cuda";
    availability.devices.push_back(device);
    return availability;
  }

  // A syntax check: py_compile parses and byte-compiles without importing (so without
  // running the candidate). Imports and Triton compilation happen in the worker.
  CompileResult compile(const CompileRequest& request) override {
    const auto start = std::chrono::steady_clock::now();
    CompileResult result;
    result.kernel = request.kernel;
    result.key = content_hash(std::vector<std::string>{"python", to_string(language_), request.source});
    static std::atomic<int> counter{0};
    const fs::path dir = cache_dir() / "python-check";
    const fs::path file = dir / (result.key + "-" + std::to_string(counter++) + ".py");
    write_file(file, request.source);
    std::string log;
    const int status = run_capture(shell_quote(python_interpreter().string()) + " -m py_compile " +
                                       shell_quote(file.string()),
                                   log);
    std::error_code ignored;
    fs::remove(file, ignored);
    // Diagnostics name the request's file, not the scratch copy.
    for (auto at = log.find(file.string()); at != std::string::npos; at = log.find(file.string()))
      log.replace(at, file.string().size(), request.source_name);
    result.ok = status == 0;
    result.log = status < 0 ? "cannot run " + python_interpreter().string() : log;
    if (status > 0) result.log = summary_line(log, request.source_name) + "\n" + log;
    if (result.ok) {
      result.binary = request.source;
      result.binary_format = "python-source";
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  std::unique_ptr<Device> open_device(int) override {
    throw DeviceError(name() + " tasks run in python/kforge_worker.py, not in kforge-worker", false);
  }

 private:
  Language language_;
};
}  // namespace

std::unique_ptr<Backend> make_python_backend(Language language) { return std::make_unique<PythonBackend>(language); }

}  // namespace kforge
