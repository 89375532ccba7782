// report.html must be well-formed and render in a real browser: a tag-balance check
// always, and a headless Chromium screenshot + DOM dump when Chromium is installed.
#include "report/report.h"
#include "sample_run.h"
#include "util/files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

namespace kforge {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// Returns "" when every element is closed in order, else what is wrong. Handles the
// subset report.html uses: void elements, self-closing SVG tags, <style> raw text.
std::string check_tag_balance(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link"};
  std::vector<std::string> stack;
  std::size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    if (html.compare(i, 4, "<!--") == 0) {
      i = html.find("-->", i);
      if (i == std::string::npos) return "unterminated comment";
      continue;
    }
    const auto end = html.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = html.substr(i + 1, end - i - 1);
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) return "unbalanced quotes in <" + tag + ">";
    if (tag.find('<') != std::string::npos) return "'<' inside tag <" + tag + ">";
    i = end + 1;
    if (tag.empty() || tag[0] == '!') continue;  // doctype
    const bool closing = tag[0] == '/';
    const bool self_closing = tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" \t\n/"));
    if (closing) {
      if (stack.empty() || stack.back() != name)
        return "</" + name + "> closes <" + (stack.empty() ? std::string("nothing") : stack.back()) + ">";
      stack.pop_back();
    } else if (!self_closing && !kVoid.count(name)) {
      stack.push_back(name);
      if (name == "style") {  // raw text until </style>
        i = html.find("</style>", i);
        if (i == std::string::npos) return "unterminated <style>";
      }
    }
  }
  if (!stack.empty()) return "<" + stack.back() + "> never closed";
  return "";
}

std::string chromium_binary() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string probe = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return name;
  }
  return "";
}

std::string run_and_capture(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[8192];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    ::pclose(pipe);
  }
  return out;
}

std::filesystem::path write_sample_report(const std::filesystem::path& dir) {
  auto store = RunStore::create(dir);
  testing::make_sample_run(store);
  ReportInputs inputs;
  inputs.original_source = testing::kOriginalSource;
  inputs.device_name = "test device";
  return write_report(store, dir, inputs).html;
}

TEST(HtmlReport, TagsAreBalanced) {
  TempDir tmp;
  const auto html = read_file(write_sample_report(tmp.path() / "run"));
  EXPECT_EQ(check_tag_balance(html), "");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(HtmlReport, TagCheckerCatchesMistakes) {
  EXPECT_EQ(check_tag_balance("<p><b>x</b></p>"), "");
  EXPECT_EQ(check_tag_balance("<svg><circle r=\"1\"/></svg><meta charset=\"utf-8\">"), "");
  EXPECT_NE(check_tag_balance("<p><b>x</p></b>"), "");
  EXPECT_NE(check_tag_balance("<div>"), "");
  EXPECT_NE(check_tag_balance("<a href=\"x>y</a>"), "");
}

TEST(HtmlReport, RendersInHeadlessChromium) {
  const std::string chromium = chromium_binary();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed; cannot render report.html";
  TempDir tmp;
  const auto html = write_sample_report(tmp.path() / "run");
  const auto png = tmp.path() / "report.png";
  const std::string flags = " --headless --no-sandbox --disable-gpu --hide-scrollbars"
                            " --user-data-dir=" + (tmp.path() / "profile").string() +
                            " --window-size=1200,1600 ";
  const std::string url = "file://" + std::filesystem::absolute(html).string();
  std::system(("timeout 90 " + chromium + flags + "--screenshot=" + png.string() + " " + url +
               " >/dev/null 2>&1").c_str());
  ASSERT_TRUE(std::filesystem::exists(png)) << "chromium wrote no screenshot";
  EXPECT_GT(std::filesystem::file_size(png), 10000u);

  const std::string dom =
      run_and_capture("timeout 90 " + chromium + flags + "--dump-dom " + url + " 2>/dev/null");
  EXPECT_THAT(dom, HasSubstr("<svg"));
  EXPECT_THAT(dom, HasSubstr("best latency per generation"));
  EXPECT_THAT(dom, HasSubstr("class=\"roof\""));
  EXPECT_THAT(dom, HasSubstr("class=\"lineage-node\""));
  EXPECT_THAT(dom, HasSubstr("<polyline"));
  if (const char* keep = std::getenv("KFORGE_REPORT_SCREENSHOT"))
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace kforge
