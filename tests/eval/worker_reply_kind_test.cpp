// How a worker request ended is a value (WorkerReply::Kind), not words to search: a real
// worker process that times out, dies of a signal, reports its memory limit or an error.
// The workers are tiny shell scripts speaking the protocol's greeting, without the sandbox.
#include <gtest/gtest.h>

#include <signal.h>

#include <string>
#include <vector>

#include "eval/worker_process.h"

namespace kforge {
namespace {

// A worker that greets, reads one request and then runs `then` (a shell command).
WorkerReply one_request(const std::string& then, double timeout_s = 10) {
  WorkerLimits limits;
  limits.sandbox = false;
  limits.isolate_network = false;
  WorkerProcess worker({"/bin/sh", "-c", "echo '{\"ok\":true}'; read request; " + then}, limits);
  return worker.request({{"op", "ping"}}, timeout_s);
}

TEST(WorkerReplyKind, AnAnswerIsOk) {
  const WorkerReply reply = one_request("echo '{\"ok\":true,\"pong\":1}'");
  EXPECT_EQ(reply.kind, WorkerReply::Kind::Ok) << reply.message;
  EXPECT_EQ(reply.body.value("pong", 0), 1);
}

TEST(WorkerReplyKind, NoAnswerInTimeIsTimedOut) {
  const WorkerReply reply = one_request("sleep 30", 1);
  EXPECT_EQ(reply.kind, WorkerReply::Kind::TimedOut);
  EXPECT_EQ(reply.message, "timed out after 1 s");
}

TEST(WorkerReplyKind, ASignalIsCrashedWithTheSignal) {
  const WorkerReply reply = one_request("kill -9 $$");
  EXPECT_EQ(reply.kind, WorkerReply::Kind::Crashed);
  EXPECT_EQ(reply.signal, SIGKILL);
  EXPECT_NE(reply.message.find("killed by signal 9"), std::string::npos) << reply.message;
}

TEST(WorkerReplyKind, ExitingWithoutAnswerIsCrashedWithoutASignal) {
  const WorkerReply reply = one_request("exit 3");
  EXPECT_EQ(reply.kind, WorkerReply::Kind::Crashed);
  EXPECT_EQ(reply.signal, 0);
  EXPECT_NE(reply.message.find("exited with code 3"), std::string::npos) << reply.message;
}

TEST(WorkerReplyKind, TheMemoryLimitIsOutOfMemory) {
  const WorkerReply reply =
      one_request("echo '{\"ok\":false,\"out_of_memory\":true,\"error\":\"compiler ran out of memory\"}'");
  EXPECT_EQ(reply.kind, WorkerReply::Kind::OutOfMemory);
  EXPECT_EQ(reply.message, "compiler ran out of memory");
}

TEST(WorkerReplyKind, AnErrorAnswerIsError) {
  const WorkerReply reply = one_request("echo '{\"ok\":false,\"error\":\"no such op\"}'");
  EXPECT_EQ(reply.kind, WorkerReply::Kind::Error);
  EXPECT_EQ(reply.message, "no such op");
}

}  // namespace
}  // namespace kforge
