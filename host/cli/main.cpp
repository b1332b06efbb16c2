// scoria: the batch scheduler's command line.
#include <cstring>
#include <iostream>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/large_heap.h"
#include "cli/plugin_trial.h"

namespace {

constexpr const char* kUsage =
    "usage: scoria <command> [options]\n"
    "\n"
    "commands:\n"
    "  simulate --config CONF [--config CONF2] [--cycles N | --until SECONDS]\n"
    "           [--output json|table] [--timings] [--report FILE.html]\n"
    "           [--strict-fields] [--plugin-dir DIR]... [-v N] FILE...\n"
    "                        schedule the cluster in FILE (\"-\" for stdin) and print\n"
    "                        the decisions; over simulated time with its metrics when\n"
    "                        the objects carry scoria.io/arrival or scoria.io/duration\n"
    "  trace import [--format csv|alibaba] FILE\n"
    "                        a job trace as objects for simulate (see trace --help)\n"
    "  plugins [--plugin-dir DIR]...\n"
    "                        list the actions and plugins the loader finds\n"
    "  check-config CONF [--plugin-dir DIR]...\n"
    "                        validate a scheduler config (TOML or Volcano YAML)\n"
    "  serve --config CONF [--state-dir DIR] [--listen ADDR] [--port N] [--token-file F]\n"
    "        [--strict-fields]\n"
    "                        run as a service: the local store behind an HTTP API,\n"
    "                        a session every schedule_period (see scoria serve --help)\n"
    "  ctl [--server URL] apply [--strict-fields] -f FILE | get KIND [NAME] |\n"
    "      delete KIND NAME |\n"
    "      describe podgroup NAME | top queues\n"
    "                        talk to a running scoria serve (see scoria ctl --help)\n"
    "  version               print the version\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  std::string_view cmd = args[0];
  std::span<const std::string_view> rest(args.data() + 1, args.size() - 1);
  // The commands that hold a cluster in memory: a service (whatever its
  // store holds, or will), and a run over files large enough to gain.
  if (cmd == "serve" ||
      ((cmd == "simulate" || cmd == "trace") && scoria::cli::may_hold_a_large_cluster(rest))) {
    scoria::cli::restart_with_huge_pages(argv);
    scoria::cli::keep_freed_heap();
  }
  if (cmd == "simulate") return scoria::cli::simulate(rest);
  if (cmd == "plugins") return scoria::cli::plugins(rest, scoria::cli::plugin_trial());
  if (cmd == "check-config") return scoria::cli::check_config(rest, scoria::cli::plugin_trial());
  if (cmd == "serve") return scoria::cli::serve(rest, scoria::cli::plugin_trial());
  if (cmd == "ctl") return scoria::cli::ctl(rest);
  if (cmd == "trace") return scoria::cli::trace_command(rest);
  // Internal, not listed: a trial process loading plugin files for another
  // scoria (cli/plugin_trial.h).
  if (cmd == "trial-load") return scoria::cli::trial_load_command(rest);
  if (cmd == "version" || cmd == "--version") {
    std::cout << scoria::cli::version_line() << "\n";
    return 0;
  }
  std::cerr << "scoria: unknown command \"" << cmd << "\"\n\n" << kUsage;
  return 2;
}
