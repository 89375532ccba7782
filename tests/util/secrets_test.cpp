// The secret set and its redaction: names that look like credentials, short values ignored,
// every occurrence replaced, JSON walked (keys too), the sandbox environment scrubbed.
#include <gtest/gtest.h>

#include <cstdlib>

#include "util/secrets.h"

namespace kforge {
namespace {

TEST(Secrets, NamesThatLookLikeCredentials) {
  for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "KFORGE_OPENAI_API_KEY", "HF_TOKEN",
                           "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "github_token"})
    EXPECT_TRUE(looks_like_secret_name(name)) << name;
  for (const char* name : {"PATH", "HOME", "KFORGE_WORKER", "POCL_DEVICES", "LANG"})
    EXPECT_FALSE(looks_like_secret_name(name)) << name;
}

TEST(Secrets, EveryOccurrenceIsRedactedAndShortValuesAreNot) {
  register_secret("abc");  // too short to be a key: never redacted
  register_secret("tok-1234567890");
  EXPECT_EQ(redact_secrets("a tok-1234567890 b tok-1234567890abc"), "a [REDACTED] b [REDACTED]abc");
  EXPECT_EQ(redact_secrets("abc abc"), "abc abc");
  const nlohmann::json redacted = redact_secrets_json({{"tok-1234567890", {"x tok-1234567890", 3}}});
  EXPECT_EQ(redacted.dump().find("tok-1234567890"), std::string::npos) << redacted.dump();
}

}  // namespace
}  // namespace kforge
