// What a model's reply does to the source it was shown: a whole new file, edits applied to
// it, or a reason the reply cannot be used. Nothing is dropped silently: every failure comes
// back with a one-line problem (and, for edits, the failures to show the model).
#pragma once

#include <string>
#include <vector>

#include "llm/reply_parser.h"

namespace kforge {

struct ReplySource {
  enum class Kind { Source, Garbled, NoKernel, EditsFailed };
  Kind kind = Kind::Garbled;
  std::string source;   // Kind::Source: the new kernel file
  std::string problem;  // otherwise: one line saying why there is none
  std::vector<llm::EditFailure> edit_failures;  // Kind::EditsFailed

  bool ok() const { return kind == Kind::Source; }
};

// Edits apply all-or-nothing: a partly applied set could leave a kernel the model never saw.
ReplySource source_from_reply(const llm::ParsedReply& reply, const std::string& base_source);

// "garbled", "no-kernel", "edits-failed": the stored outcome of an exchange whose reply gave no source.
std::string outcome_name(ReplySource::Kind kind);

}  // namespace kforge
