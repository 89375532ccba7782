// What the LLM client has to say besides its replies: a retry, a model without a price, an
// exchange it could not record, a replay file line it skipped. The client never prints; it
// hands notices to whoever the caller injected (the optimize command shows them on the
// console), and drops them when nobody listens.
#pragma once

#include <functional>
#include <string>

namespace kforge::llm {

enum class NoticeLevel {
  Detail,   // shown with --verbose
  Warning,  // shown even with --quiet
};

using NoticeFn = std::function<void(NoticeLevel level, const std::string& text)>;

inline void notify(const NoticeFn& notices, NoticeLevel level, const std::string& text) {
  if (notices) notices(level, text);
}

}  // namespace kforge::llm
