// A real HTTP server on 127.0.0.1 (random free port) that answers LLM requests from a script,
// records what it received, and counts how many requests it is serving at once.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace kforge::llm::testing {

struct ReceivedRequest {
  std::string path;
  std::string body;
  std::multimap<std::string, std::string, httplib::detail::ci> headers;

  std::string header(const std::string& name) const {
    const auto found = headers.find(name);
    return found == headers.end() ? "" : found->second;
  }
  nlohmann::json json() const { return nlohmann::json::parse(body); }
};

struct ScriptedReply {
  int status = 200;
  std::string body;
  std::map<std::string, std::string> headers;
  std::chrono::milliseconds delay{0};  // sleep before answering (a slow or stalled server)
};

class FakeLlmServer {
 public:
  // Called with each request and its 0-based index.
  using Script = std::function<ScriptedReply(const ReceivedRequest&, int index)>;

  explicit FakeLlmServer(Script script) : script_(std::move(script)) {
    server_.Post(".*", [this](const httplib::Request& request, httplib::Response& response) {
      serve(request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // Replies in order; the last one repeats for any further request.
  explicit FakeLlmServer(std::vector<ScriptedReply> replies)
      : FakeLlmServer([replies](const ReceivedRequest&, int index) {
          return replies[std::min<std::size_t>(static_cast<std::size_t>(index), replies.size() - 1)];
        }) {}

  ~FakeLlmServer() {
    stopping_ = true;  // lets a handler stuck in a scripted delay return now
    server_.stop();
    thread_.join();
  }
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  std::vector<ReceivedRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  int max_concurrent() const { return max_concurrent_; }

 private:
  void serve(const httplib::Request& request, httplib::Response& response) {
    const int now = ++concurrent_;
    for (int seen = max_concurrent_; now > seen && !max_concurrent_.compare_exchange_weak(seen, now);) {
    }
    ReceivedRequest received{request.path, request.body, {}};
    for (const auto& [name, value] : request.headers) received.headers.emplace(name, value);
    int index = 0;
    {
      std::lock_guard lock(mutex_);
      index = static_cast<int>(requests_.size());
      requests_.push_back(received);
    }
    const ScriptedReply reply = script_(received, index);
    const auto until = std::chrono::steady_clock::now() + reply.delay;
    while (!stopping_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    response.status = reply.status;
    for (const auto& [name, value] : reply.headers) response.set_header(name, value);
    response.set_content(reply.body, "application/json");
    --concurrent_;
  }

  Script script_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> concurrent_{0};
  std::atomic<int> max_concurrent_{0};
  mutable std::mutex mutex_;
  std::vector<ReceivedRequest> requests_;
};

inline std::string openai_reply(const std::string& text, int input_tokens, int output_tokens,
                                const std::string& finish_reason = "stop") {
  return nlohmann::json{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"choices", {{{"index", 0},
                    {"message", {{"role", "assistant"}, {"content", text}}},
                    {"finish_reason", finish_reason}}}},
      {"usage", {{"prompt_tokens", input_tokens},
                 {"completion_tokens", output_tokens},
                 {"total_tokens", input_tokens + output_tokens}}}}
      .dump();
}

inline std::string anthropic_reply(const std::string& text, int input_tokens, int output_tokens,
                                   const std::string& stop_reason = "end_turn") {
  return nlohmann::json{{"id", "msg_1"},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"content", {{{"type", "text"}, {"text", text}}}},
                        {"stop_reason", stop_reason},
                        {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}}
      .dump();
}

}  // namespace kforge::llm::testing
