#include "task/init.h"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace kforge {
namespace fs = std::filesystem;
namespace {

std::optional<DType> dtype_for_c_type(std::string type) {
  if (!type.empty() && type.back() == '*') type.pop_back();
  static const std::map<std::string, DType> types{
      {"float", DType::F32},          {"double", DType::F64},         {"half", DType::F16},
      {"__half", DType::F16},         {"_Float16", DType::F16},       {"__nv_bfloat16", DType::BF16},
      {"nv_bfloat16", DType::BF16},   {"__bf16", DType::BF16},        {"bfloat16", DType::BF16},
      {"hip_bfloat16", DType::BF16},  {"__hip_bfloat16", DType::BF16}, {"int", DType::I32},
      {"signed", DType::I32},         {"signed int", DType::I32},     {"int32_t", DType::I32},
      {"unsigned", DType::U32},       {"unsigned int", DType::U32},   {"uint", DType::U32},
      {"uint32_t", DType::U32},       {"long", DType::I64},           {"long long", DType::I64},
      {"long int", DType::I64},       {"long long int", DType::I64},  {"int64_t", DType::I64},
      {"unsigned long", DType::I64},  {"unsigned long long", DType::I64}, {"uint64_t", DType::I64},
      {"size_t", DType::I64},         {"ptrdiff_t", DType::I64},      {"char", DType::I8},
      {"signed char", DType::I8},     {"int8_t", DType::I8},          {"unsigned char", DType::U8},
      {"uchar", DType::U8},           {"uint8_t", DType::U8}};
  auto it = types.find(type);
  if (it == types.end()) return std::nullopt;
  return it->second;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// What the draft does with one kernel parameter.
struct DraftArg {
  std::string name;
  DType dtype = DType::F32;
  ArgRole role = ArgRole::Input;
  std::string value;    // scalars
  std::string comment;  // a guess the user should check
};

struct Draft {
  std::vector<DraftArg> args;
  std::vector<std::pair<std::string, std::int64_t>> extra_size_vars;  // size vars beyond n
  std::vector<std::string> notes;                                    // header comments
  bool has_bound = false;  // an integer scalar the kernel can use to guard n
};

// Triton signatures carry no types, so the role of a pointer is guessed from its name.
bool looks_like_output(const std::string& name) {
  static const std::regex output_words("out|dst|result");
  return std::regex_search(name, output_words);
}

std::string unique_var_name(std::string name, const std::set<std::string>& taken) {
  while (taken.count(name)) name += "_";
  return name;
}

void add_integer_scalar(Draft& draft, const KernelParam& param, const std::string& name, DType dtype,
                        std::set<std::string>& vars) {
  DraftArg arg{name, dtype == DType::I64 ? DType::I64 : DType::I32, ArgRole::Scalar, "n", ""};
  if (draft.has_bound) {
    // Extra integers in elementwise kernels are mostly strides or counts, where 1 is safe.
    std::string var = unique_var_name(param.name.empty() ? "m" : param.name, vars);
    vars.insert(var);
    draft.extra_size_vars.emplace_back(var, 1);
    arg.value = var;
    arg.comment = "guessed: its own size variable '" + var + "' = 1";
  }
  draft.has_bound = true;
  draft.args.push_back(arg);
}

void add_pointer(Draft& draft, const KernelParam& param, const std::string& name, Language language) {
  const bool typed = language_facts(language).typed_parameters;  // Triton names only
  DraftArg arg{name, DType::F32, param.is_const ? ArgRole::Input : ArgRole::Output, "", ""};
  if (auto dtype = dtype_for_c_type(param.type)) {
    arg.dtype = *dtype;
  } else {
    arg.comment = !typed ? "guessed: f32, role from the name" : "guessed: f32 for type '" + param.type + "'";
  }
  if (!typed) arg.role = looks_like_output(name) ? ArgRole::Output : ArgRole::Input;
  draft.args.push_back(arg);
}

Draft draft_args(const DetectedKernel& kernel, const std::set<std::string>& tunables) {
  Draft draft;
  std::set<std::string> vars(tunables.begin(), tunables.end());
  vars.insert("n");
  for (std::size_t i = 0; i < kernel.params.size(); ++i) {
    const KernelParam& param = kernel.params[i];
    std::string name = param.name.empty() ? "arg" + std::to_string(i) : param.name;
    if (param.is_constexpr) continue;  // Triton: set through [params]
    if (param.is_local) {
      draft.notes.push_back("'" + name + "' is __local memory, which manifests cannot describe yet");
      continue;
    }
    if (param.is_pointer) {
      add_pointer(draft, param, name, kernel.language);
      continue;
    }
    auto dtype = language_facts(kernel.language).typed_parameters ? dtype_for_c_type(param.type) : std::optional(DType::I32);
    if (dtype && !is_floating(*dtype)) {
      add_integer_scalar(draft, param, name, *dtype, vars);
    } else {
      DraftArg arg{name, dtype == DType::F64 ? DType::F64 : DType::F32, ArgRole::Scalar, "2", ""};
      if (!dtype || *dtype == DType::F16 || *dtype == DType::BF16)
        arg.comment = "guessed: passed as f32 for type '" + param.type + "'";
      draft.args.push_back(arg);
    }
  }
  // Every task needs an output to verify; for Triton the last pointer is the likeliest.
  bool has_output = std::any_of(draft.args.begin(), draft.args.end(), [](const auto& a) { return a.role == ArgRole::Output; });
  if (!has_output) {
    auto last_pointer = std::find_if(draft.args.rbegin(), draft.args.rend(), [](const auto& a) { return a.role == ArgRole::Input; });
    if (last_pointer != draft.args.rend()) {
      last_pointer->role = ArgRole::Output;
      last_pointer->comment = "guessed: the kernel writes it";
    }
  }
  return draft;
}

// The most threads per block the kernel allows: __launch_bounds__(N) or reqd_work_group_size(N, ..).
std::optional<std::int64_t> max_threads(const DetectedKernel& kernel) {
  static const std::regex bound(R"((__launch_bounds__|reqd_work_group_size)\s*\(\s*(\d+))");
  for (const auto& attribute : kernel.attributes) {
    std::smatch match;
    if (std::regex_search(attribute, match, bound)) return std::stoll(match[2]);
  }
  return std::nullopt;
}

// The tunable block size: BLOCK for C-family kernels, the first tl.constexpr for Triton
// (none when a Triton kernel has no tl.constexpr).
struct BlockParam {
  std::string name = "BLOCK";
  std::vector<std::int64_t> values{128, 256, 512};
  std::int64_t default_value = 256;
};

BlockParam block_param(const DetectedKernel& kernel) {
  BlockParam block;
  if (!language_facts(kernel.language).block_is_launch_dimension) {  // Triton: a tl.constexpr
    block.values = {256, 512, 1024};
    block.default_value = 1024;
    auto constexpr_param = std::find_if(kernel.params.begin(), kernel.params.end(), [](const auto& p) { return p.is_constexpr; });
    // Without a tl.constexpr there is nothing to tune: one program per element.
    block.name = constexpr_param != kernel.params.end() ? constexpr_param->name : "";
    return block;
  }
  // -D BLOCK=... must not collide with a name the kernel itself declares.
  for (const auto& p : kernel.params)
    if (p.name == block.name) block.name = "KFORGE_BLOCK";
  for (const auto& t : kernel.template_params)
    if (t.ends_with(" BLOCK")) block.name = "KFORGE_BLOCK";
  if (auto limit = max_threads(kernel)) {
    std::erase_if(block.values, [&](std::int64_t v) { return v > *limit; });
    if (block.values.empty()) block.values = {*limit};
    if (std::find(block.values.begin(), block.values.end(), block.default_value) == block.values.end())
      block.default_value = block.values.back();
  }
  return block;
}

std::string join_numbers(const std::vector<std::int64_t>& values) {
  std::string out;
  for (auto v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

void write_task(std::ostringstream& out, const DetectedKernel& kernel, const fs::path& manifest_dir) {
  fs::path source = fs::absolute(kernel.file).lexically_normal().lexically_relative(fs::absolute(manifest_dir).lexically_normal());
  out << "[task]\n"
      << "name = " << quoted(kernel.name) << "\n"
      << "language = " << quoted(to_string(kernel.language)) << "\n"
      << "source = " << quoted(source.generic_string()) << "\n"
      << "kernel = " << quoted(kernel.name) << "\n\n";
}

void write_args(std::ostringstream& out, const Draft& draft) {
  for (const auto& arg : draft.args) {
    out << "[[args]]";
    if (!arg.comment.empty()) out << "  # " << arg.comment;
    out << "\nname = " << quoted(arg.name) << "\ndtype = " << quoted(to_string(arg.dtype)) << "\n";
    if (arg.role == ArgRole::Scalar) {
      out << "role = \"scalar\"\nvalue = " << quoted(arg.value) << "\n\n";
      continue;
    }
    out << "shape = [\"n\"]\nrole = " << quoted(to_string(arg.role)) << "\n";
    if (arg.role == ArgRole::Input) out << "init = " << quoted(is_floating(arg.dtype) ? "uniform(-1,1)" : "randint(0,100)") << "\n";
    out << "\n";
  }
}

void write_launch_and_params(std::ostringstream& out, const DetectedKernel& kernel, const BlockParam& block) {
  out << "[launch]\n";
  if (block.name.empty()) {
    out << "grid = [\"n\", \"1\", \"1\"]\n\n";
    return;
  }
  const bool block_in_launch = language_facts(kernel.language).block_is_launch_dimension;
  if (block_in_launch) out << "block = [" << quoted(block.name) << ", \"1\", \"1\"]\n";
  out << "grid = [" << quoted("ceil_div(n, " + block.name + ")") << ", \"1\", \"1\"]\n\n";
  out << "[params]  # each becomes -D NAME=VALUE";
  if (!block_in_launch) out << "; Triton passes it as the tl.constexpr argument";
  out << "\n" << block.name << " = { values = [" << join_numbers(block.values) << "], default = " << block.default_value << " }\n\n";
}

// Without an integer bound the kernel cannot guard a ragged tail, so both sizes are multiples
// of every block size.
void write_sizes(std::ostringstream& out, const Draft& draft) {
  std::vector<std::pair<std::string, std::int64_t>> sizes{{"large", 1048576}, {"odd", 1000003}};
  if (!draft.has_bound) sizes[1] = {"small", 262144};
  for (const auto& [name, n] : sizes) {
    out << "[[sizes]]\nname = " << quoted(name) << "\nn = " << n << "\n";
    for (const auto& [var, value] : draft.extra_size_vars) out << var << " = " << value << "\n";
  }
}

}  // namespace

std::string draft_manifest(const DetectedKernel& kernel, const fs::path& manifest_dir) {
  BlockParam block = block_param(kernel);
  Draft draft = draft_args(kernel, {block.name});
  std::ostringstream out;
  out << "# Drafted by `kforge init` from " << kernel.file.filename().generic_string() << ":" << kernel.line
      << ". Check roles, dtypes and sizes (docs/TASK_FORMAT.md).\n";
  if (!kernel.template_params.empty())
    out << "# Template kernel: add an extern \"C\" instantiation and name it in 'kernel'.\n";
  if (!draft.has_bound) out << "# No integer parameter bounds the kernel, so every size is a multiple of the block.\n";
  for (const auto& note : draft.notes) out << "# " << note << ".\n";
  out << "\n";
  write_task(out, kernel, manifest_dir);
  write_args(out, draft);
  write_launch_and_params(out, kernel, block);
  write_sizes(out, draft);
  return out.str();
}

}  // namespace kforge
