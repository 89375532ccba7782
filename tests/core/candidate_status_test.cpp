// The one candidate status: every value survives to_string and back, unknown names do not parse.
#include <gtest/gtest.h>

#include "core/candidate_status.h"

namespace kforge {
namespace {

TEST(CandidateStatus, EveryStatusRoundTripsThroughItsStoredName) {
  for (const CandidateStatus status :
       {CandidateStatus::Pending, CandidateStatus::Compiling, CandidateStatus::CompileError,
        CandidateStatus::RuntimeError, CandidateStatus::Timeout, CandidateStatus::Incorrect, CandidateStatus::Correct})
    EXPECT_EQ(parse_candidate_status(to_string(status)), status) << to_string(status);
}

TEST(CandidateStatus, StoredNamesAreTheOnesOldRunsUse) {
  EXPECT_EQ(to_string(CandidateStatus::Compiling), "compiling");
  EXPECT_EQ(to_string(CandidateStatus::CompileError), "compile_error");
  EXPECT_EQ(to_string(CandidateStatus::RuntimeError), "runtime_error");
  EXPECT_EQ(parse_candidate_status("timeout"), CandidateStatus::Timeout);
  EXPECT_FALSE(parse_candidate_status("exploded").has_value());
  EXPECT_FALSE(parse_candidate_status("").has_value());
}

TEST(CandidateStatus, InFlightAndFailureSplitTheStatuses) {
  EXPECT_TRUE(is_in_flight(CandidateStatus::Pending));
  EXPECT_TRUE(is_in_flight(CandidateStatus::Compiling));
  EXPECT_FALSE(is_in_flight(CandidateStatus::Correct));
  EXPECT_FALSE(is_failure(CandidateStatus::Compiling));
  EXPECT_FALSE(is_failure(CandidateStatus::Correct));
  EXPECT_TRUE(is_failure(CandidateStatus::Timeout));
  EXPECT_TRUE(is_failure(CandidateStatus::Incorrect));
}

}  // namespace
}  // namespace kforge
