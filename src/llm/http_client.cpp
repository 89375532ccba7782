#include "llm/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <mutex>

namespace kforge::llm {
namespace {

void ensure_curl_initialized() {
  // curl_global_init is not thread-safe; do it exactly once, before any easy handle exists.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct TransferState {
  HttpResponse* response;
  std::size_t max_bytes;
  bool overflowed = false;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  const size_t bytes = size * count;
  if (state->response->body.size() + bytes > state->max_bytes) {
    state->overflowed = true;
    return 0;  // makes curl abort the transfer with CURLE_WRITE_ERROR
  }
  state->response->body.append(data, bytes);
  return bytes;
}

std::string trim(std::string text) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
  text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
  return text;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  const size_t bytes = size * count;
  const std::string line(data, bytes);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name == "retry-after") {
      state->response->retry_after = parse_retry_after(trim(line.substr(colon + 1)));
    }
  } else if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (after a redirect or 100-continue): forget the previous headers.
    state->response->retry_after.reset();
  }
  return bytes;
}

std::string local_no_proxy_list() {
  std::string list = "localhost,127.0.0.1,::1";
  for (const char* name : {"NO_PROXY", "no_proxy"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
      list += ",";
      list += value;
    }
  }
  return list;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value) {
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
    if (value.size() > 9) return std::nullopt;  // absurd; let the back-off decide
    return std::chrono::seconds(std::stol(value));
  }
  const time_t when = curl_getdate(value.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  const time_t now = std::time(nullptr);
  return std::chrono::seconds(when > now ? when - now : 0);
}

HttpResponse http_post(const HttpRequest& request) {
  ensure_curl_initialized();
  HttpResponse response;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    response.transport_error = "could not create a curl handle";
    return response;
  }
  TransferState state{&response, request.max_response_bytes};

  curl_slist* headers = nullptr;
  for (const auto& header : request.headers) headers = curl_slist_append(headers, header.c_str());

  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &state);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
  // Signals cannot interrupt DNS lookups safely in a multi-threaded process.
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // never re-send the key elsewhere
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // any encoding curl can decode
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "kforge/0.1");
  // A model server on this machine must not be sent through an HTTP(S)_PROXY from the
  // environment. Setting NOPROXY replaces the no_proxy variable, so keep its entries.
  const std::string no_proxy = local_no_proxy_list();
  curl_easy_setopt(curl, CURLOPT_NOPROXY, no_proxy.c_str());

  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  if (code != CURLE_OK) {
    response.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    if (state.overflowed) {
      response.too_large = true;
      response.body.clear();  // a fragment of an oversized reply is of no use to anyone
      response.transport_error =
          "response larger than " + std::to_string(request.max_response_bytes) + " bytes";
    } else {
      response.transport_error = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    }
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return response;
}

}  // namespace kforge::llm
