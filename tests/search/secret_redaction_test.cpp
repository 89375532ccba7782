// A configured secret echoed back by a candidate (its error text, a compile log, a worker
// reply) reaches none of: run.db, exchanges.jsonl, the console, the requests the LLM server
// receives. Real parts throughout: a real worker process, a real SQLite file, a real HTTP server.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "../llm/fake_llm_server.h"
#include "support/temp_dir.h"
#include "eval/worker_process.h"
#include "llm/http_provider.h"
#include "llm/jsonl_exchange_sink.h"
#include "store/run_store.h"
#include "util/log.h"
#include "util/secrets.h"

namespace kforge {
namespace {

constexpr const char* kKey = "sk-proj-LEAKED-9f8e7d6c5b4a3210";

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool holds_key(const std::string& text) { return text.find(kKey) != std::string::npos; }

class SecretRedaction : public ::testing::Test {
 protected:
  void SetUp() override {
    // As a user runs kforge: the key in the environment (read into the secret set).
    ::setenv("OPENAI_API_KEY", kKey, 1);
    register_secret(kKey);
  }
};

TEST_F(SecretRedaction, WorkerReplyEchoingTheKeyIsRedactedBeforeAnyoneSeesIt) {
  // A worker (a shell script speaking the protocol) whose error text carries the key.
  kforge::testing::TempDir dir;
  const auto script = dir.path() / "echo_worker.sh";
  std::ofstream(script) << "#!/bin/sh\necho '{\"ok\":true}'\nread line\n"
                           "echo '{\"ok\":false,\"error\":\"KeyError: " << kKey << " not allowed\",\"log\":\"" << kKey
                        << "\"}'\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  WorkerProcess worker({script.string()}, WorkerLimits{});
  const WorkerReply reply = worker.request({{"op", "check"}}, 60);
  ASSERT_EQ(reply.kind, WorkerReply::Kind::Error) << reply.message;
  EXPECT_FALSE(holds_key(reply.message)) << reply.message;
  EXPECT_FALSE(holds_key(reply.body.dump())) << reply.body.dump();
  EXPECT_NE(reply.message.find(kRedacted), std::string::npos) << reply.message;
}

TEST_F(SecretRedaction, RunStoreNeverHoldsTheKey) {
  kforge::testing::TempDir dir;
  {
    RunStore store = RunStore::create(dir.path() / "run");
    CandidateRecord record;
    record.source = std::string("#error ") + kKey + "\n__kernel void k() {}";
    record.rationale = kKey;
    const auto id = store.insert_candidate(record);
    CandidateResult result;
    result.status = CandidateStatus::CompileError;
    result.status_message = std::string("error: ") + kKey;
    result.compile_log = std::string("<source>:1:2: error: ") + kKey;
    result.metrics = metrics_from_json({{"message", kKey}, {kKey, 1}});
    store.update_candidate_result(id, result);
    store.update_candidate_status(id, CandidateStatus::CompileError, kKey);
    store.add_event(std::string("candidate failed: ") + kKey);
    store.set_setting("note", {{"why", kKey}});
    LlmExchange exchange;
    exchange.request_json = nlohmann::json{{"messages", {{{"content", kKey}}}}}.dump();
    exchange.text = kKey;
    exchange.error = kKey;
    store.add_llm_exchange(exchange);
  }
  std::string everything;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() / "run"))
    everything += file_bytes(entry.path());  // run.db and its WAL
  EXPECT_FALSE(holds_key(everything)) << "the key is in run.db";
  EXPECT_NE(everything.find(kRedacted), std::string::npos);
}

TEST_F(SecretRedaction, RepairPromptsAndExchangeLogNeverCarryTheKey) {
  llm::testing::FakeLlmServer server(std::vector<llm::testing::ScriptedReply>{
      {200, llm::testing::openai_reply(std::string("echo: ") + kKey, 10, 10), {}, {}}});
  kforge::testing::TempDir dir;
  auto sink = std::make_shared<llm::JsonlExchangeSink>(dir.path() / "exchanges.jsonl");
  llm::ProviderConfig config;
  config.model = "gpt-4o";
  config.base_url = server.url();
  config.api_key = kKey;
  auto provider = llm::make_openai_provider(config, sink);
  // A repair prompt quoting the candidate's compile error, which quotes the key.
  const auto response = provider->complete(
      {"system", {{"user", std::string("The kernel failed to compile:\nerror: unknown macro ") + kKey}}, 100, 0.1,
       "repair", "7"});
  ASSERT_TRUE(response.ok()) << response.error;
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(holds_key(server.requests().at(0).header("Authorization"))) << "the key still authenticates";
  EXPECT_FALSE(holds_key(server.requests().at(0).body)) << server.requests().at(0).body;
  EXPECT_FALSE(holds_key(file_bytes(dir.path() / "exchanges.jsonl")));
}

TEST_F(SecretRedaction, ConsoleNeverPrintsTheKey) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    log::error("candidate 3: compile error: {}", kKey);
    log::info("note {}", kKey);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string printed;
  char chunk[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], chunk, sizeof chunk)) > 0;) printed.append(chunk, static_cast<std::size_t>(n));
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(holds_key(printed)) << printed;
  EXPECT_NE(printed.find(kRedacted), std::string::npos) << printed;
}

}  // namespace
}  // namespace kforge
