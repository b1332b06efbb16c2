#include "plugin/plugin_ctx.h"

#include <string>

#include "log/log.h"

namespace scoria::plugin {

namespace {
bool power_of_ten(uint64_t n) {
  while (n >= 10 && n % 10 == 0) n /= 10;
  return n == 1;
}
void throttled(const scoria_plugin_ctx* ctx, uint64_t n, std::string_view message) {
  if (!power_of_ten(n)) return;
  std::string line(message);
  if (n > 1) line += " (" + std::to_string(n) + " times so far)";
  log::write(log::kError, ctx->name, line);
}
}  // namespace

void count_error(const scoria_plugin_ctx* ctx, std::string_view message) {
  if (ctx == nullptr) {
    log::write(log::kError, "plugin", message);
    return;
  }
  auto* c = const_cast<scoria_plugin_ctx*>(ctx);
  throttled(ctx, c->errors.fetch_add(1, std::memory_order_relaxed) + 1, message);
}

void report_error(const scoria_plugin_ctx* ctx, std::string_view message) {
  if (ctx == nullptr) {
    log::write(log::kError, "plugin", message);
    return;
  }
  auto* c = const_cast<scoria_plugin_ctx*>(ctx);
  throttled(ctx, c->reports.fetch_add(1, std::memory_order_relaxed) + 1, message);
}

}  // namespace scoria::plugin
