#include "search/llm_operators/reply_to_source.h"

#include <fmt/format.h>

namespace kforge {

ReplySource source_from_reply(const llm::ParsedReply& reply, const std::string& base_source) {
  ReplySource out;
  if (!reply.garbled.empty()) {
    out.kind = ReplySource::Kind::Garbled;
    out.problem = "garbled reply: " + reply.garbled;
    return out;
  }
  switch (reply.kind()) {
    case llm::ParsedReply::Kind::Edits: {
      const auto applied = llm::apply_edit_blocks(base_source, reply.edits);
      if (!applied.all_applied()) {
        out.kind = ReplySource::Kind::EditsFailed;
        out.edit_failures = applied.failed;
        out.problem = fmt::format("{} of {} edit blocks did not apply (block {}: {})", applied.failed.size(),
                                  reply.edits.size(), applied.failed.front().index + 1, applied.failed.front().reason);
        return out;
      }
      out.kind = ReplySource::Kind::Source;
      out.source = applied.source;
      return out;
    }
    case llm::ParsedReply::Kind::WholeFile:
      out.kind = ReplySource::Kind::Source;
      out.source = reply.kernel_file->code;
      return out;
    case llm::ParsedReply::Kind::None: break;
  }
  out.kind = ReplySource::Kind::NoKernel;
  const bool truncated = !reply.code_blocks.empty() && !reply.code_blocks.back().terminated;
  out.problem = truncated ? "the reply ended inside its code block (truncated output)"
                          : "the reply contains neither a kernel file nor edit blocks";
  if (!reply.problems.empty()) out.problem += " (" + reply.problems.front() + ")";
  return out;
}

std::string outcome_name(ReplySource::Kind kind) {
  switch (kind) {
    case ReplySource::Kind::Source: return "ok";
    case ReplySource::Kind::Garbled: return "garbled";
    case ReplySource::Kind::NoKernel: return "no-kernel";
    case ReplySource::Kind::EditsFailed: return "edits-failed";
  }
  return "ok";
}

}  // namespace kforge
