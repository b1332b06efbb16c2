// `scoria ctl`: kubectl-shaped commands against a running `scoria serve`.
//
//   scoria ctl [--server URL] [--token-file F] apply -f FILE...
//   scoria ctl ... get nodes|pods|podgroups|queues|priorityclasses [NAME] [-n NS] [-o json]
//   scoria ctl ... delete KIND NAME [-n NS]
//   scoria ctl ... describe podgroup NAME [-n NS]
//   scoria ctl ... top queues
//   scoria ctl ... explain POD [-n NS] [-o json]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "http/client.h"
#include "model/error.h"
#include "scheduler/explanation_report.h"

namespace scoria::cli {

namespace {

using nlohmann::json;

constexpr const char* kCtlUsage =
    "usage: scoria ctl [--server URL] [--certificate-authority CA] [--token-file FILE] COMMAND\n"
    "  apply [--strict-fields] -f FILE...\n"
    "                                    create or replace the objects in FILE (\"-\": stdin);\n"
    "                                    a field its kind does not have is warned about, or\n"
    "                                    refuses the file with --strict-fields\n"
    "  get KIND [NAME] [-n NS | -A] [-o json]\n"
    "                                    KIND: nodes, pods, podgroups, queues, priorityclasses\n"
    "  delete KIND NAME [-n NS]\n"
    "  describe podgroup NAME [-n NS]    why a PodGroup is pending\n"
    "  top queues                        allocated against deserved\n"
    "  explain POD [-n NS] [-o json]     why the next session places the pod where it\n"
    "                                    does: every plugin's answer on every node\n"
    "  health                            exit 0 if the service answers /healthz\n"
    "  The server defaults to $SCORIA_SERVER or http://127.0.0.1:8080; the token to\n"
    "  $SCORIA_TOKEN. An https:// server's certificate is verified against\n"
    "  --certificate-authority (PEM), else the system's CAs, and must name its host.\n";

struct Ctl {
  http::Endpoint server;
  std::vector<std::string> words;
  std::string ns = "default";
  bool all_namespaces = false;
  std::string output = "table";
  bool strict_fields = false;
  std::vector<std::string> files;
};

std::string slurp(const std::string& file) {
  if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(file);
  if (!in) throw InputError(file + ": cannot open it; check that the file exists and is readable");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Ctl parse_ctl_args(std::span<const std::string_view> args) {
  Ctl c;
  if (const char* env = std::getenv("SCORIA_SERVER")) {
    if (!http::parse_endpoint(env, c.server))
      throw InputError(std::string("SCORIA_SERVER=") + env +
                       ": give http://HOST:PORT or https://HOST:PORT");
  }
  if (const char* env = std::getenv("SCORIA_TOKEN")) c.server.token = env;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw InputError(std::string(a) + " needs a value");
      return std::string(args[++i]);
    };
    if (a == "--server" || a == "-s") {
      const std::string url = value();
      if (!http::parse_endpoint(url, c.server))
        throw InputError("--server " + url + ": give http://HOST:PORT or https://HOST:PORT");
    } else if (a == "--certificate-authority") {
      c.server.ca_file = value();
    } else if (a == "--token-file") {
      std::string token = slurp(value());
      while (!token.empty() && (token.back() == '\n' || token.back() == ' ')) token.pop_back();
      c.server.token = token;
    } else if (a == "-n" || a == "--namespace") {
      c.ns = value();
    } else if (a == "-A" || a == "--all-namespaces") {
      c.all_namespaces = true;
    } else if (a == "-o" || a == "--output") {
      c.output = value();
    } else if (a == "-f" || a == "--filename") {
      c.files.push_back(value());
    } else if (a == "--strict-fields") {
      c.strict_fields = true;
    } else if (a == "-h" || a == "--help") {
      std::cout << kCtlUsage;
      std::exit(0);
    } else {
      c.words.emplace_back(a);
    }
  }
  if (c.words.empty()) throw InputError(std::string("name a command\n") + kCtlUsage);
  return c;
}

// Asks the server; prints its error and returns nullopt on failure.
std::optional<json> call(const Ctl& c, const std::string& method, const std::string& target,
                         const std::string& body = "") {
  const http::ClientResult r = http::request(c.server, method, target, body);
  if (r.status == 0) {
    std::cerr << "scoria: cannot reach " << c.server.host << ":" << c.server.port << ": " << r.error
              << "\n";
    return std::nullopt;
  }
  const json answer = json::parse(r.body, nullptr, false);
  if (r.status >= 400) {
    std::cerr << "Error from server (" << r.status << "): "
              << (answer.is_object() ? answer.value("error", answer.value("message", r.body))
                                     : r.body)
              << "\n";
    return std::nullopt;
  }
  return answer;
}

std::string plural(std::string kind) {
  if (kind == "node" || kind == "pod" || kind == "podgroup" || kind == "queue" ||
      kind == "priorityclass")
    return kind == "priorityclass" ? "priorityclasses" : kind + "s";
  if (kind == "pg") return "podgroups";
  if (kind == "no") return "nodes";
  if (kind == "po") return "pods";
  if (kind == "q") return "queues";
  if (kind == "pc") return "priorityclasses";
  return kind;
}

bool namespaced(const std::string& kind) { return kind == "pods" || kind == "podgroups"; }

// The target of one object, every name percent-encoded: `delete node 'a?b'`
// must address node a?b, never node a with a query string.
std::string object_target(const Ctl& c, const std::string& kind, const std::string& name) {
  return namespaced(kind) ? http::path_of({"api", "v1", kind, c.ns, name})
                          : http::path_of({"api", "v1", kind, name});
}

std::string text(const json& j, std::initializer_list<const char*> path, std::string def = "") {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return def;
    at = &(*at)[key];
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_number() || at->is_boolean()) return at->dump();
  return def;
}

// Columns as kubectl prints them: left-aligned, two spaces apart.
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].size());
    }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 3, ' ');
    }
    std::cout << line << "\n";
  }
}

std::vector<std::string> row_of(const std::string& kind, const json& o) {
  if (kind == "nodes")
    return {text(o, {"metadata", "name"}), text(o, {"status", "allocatable", "cpu"}, "-"),
            text(o, {"status", "allocatable", "memory"}, "-"),
            text(o, {"status", "allocatable", "pods"}, "-"),
            text(o, {"spec", "unschedulable"}, "false") == "true" ? "SchedulingDisabled" : "Ready"};
  if (kind == "pods")
    return {text(o, {"metadata", "namespace"}, "default"), text(o, {"metadata", "name"}),
            text(o, {"status", "phase"}, "Pending"), text(o, {"spec", "nodeName"}, "<none>")};
  if (kind == "podgroups")
    return {text(o, {"metadata", "namespace"}, "default"), text(o, {"metadata", "name"}),
            text(o, {"status", "phase"}, "Pending"), text(o, {"spec", "minMember"}, "1"),
            text(o, {"spec", "queue"}, "default")};
  if (kind == "queues")
    return {text(o, {"metadata", "name"}), text(o, {"spec", "weight"}, "1"),
            text(o, {"status", "state"}, "Open"), text(o, {"spec", "parent"}, "<none>")};
  return {text(o, {"metadata", "name"}), text(o, {"value"}, "0")};
}

std::vector<std::string> header_of(const std::string& kind) {
  if (kind == "nodes") return {"NAME", "CPU", "MEMORY", "PODS", "STATUS"};
  if (kind == "pods") return {"NAMESPACE", "NAME", "STATUS", "NODE"};
  if (kind == "podgroups") return {"NAMESPACE", "NAME", "STATUS", "MINMEMBER", "QUEUE"};
  if (kind == "queues") return {"NAME", "WEIGHT", "STATE", "PARENT"};
  return {"NAME", "VALUE"};
}

// Millicores and bytes as people read them.
std::string human(const std::string& dim, double v) {
  char buf[32];
  if (dim == "cpu") {
    std::snprintf(buf, sizeof buf, "%gm", v);
  } else if (dim == "memory") {
    std::snprintf(buf, sizeof buf, "%.1fGi", v / (1024.0 * 1024 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

int run(const Ctl& c) {
  const std::string& verb = c.words[0];
  if (verb == "apply") {
    if (c.files.empty()) throw InputError("apply needs -f FILE");
    int rc = 0;
    // Without --strict-fields the server's default decides (Warn, unless
    // it runs with --strict-fields).
    const std::string target =
        c.strict_fields ? "/api/v1/objects?fieldValidation=Strict" : "/api/v1/objects";
    for (const std::string& f : c.files) {
      const auto done = call(c, "POST", target, slurp(f));
      if (!done) {
        rc = 1;
        continue;
      }
      if (const auto w = done->find("warnings"); w != done->end() && w->is_array())
        for (const auto& line : *w)
          if (line.is_string()) std::cerr << "Warning: " << line.get<std::string>() << "\n";
      for (const auto& what : (*done)["applied"]) {
        std::string s = what.get<std::string>();
        const size_t space = s.find(' ');
        std::string kind = s.substr(0, space);
        for (char& ch : kind) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        std::string key = s.substr(space + 1);
        std::cout << kind << "/" << key.substr(key.find('/') + 1) << " configured\n";
      }
    }
    return rc;
  }
  if (verb == "health") {
    // For container health checks: exit 0 when /healthz answers.
    const http::ClientResult r = http::request(c.server, "GET", "/healthz");
    if (r.status == 200) {
      std::cout << "ok\n";
      return 0;
    }
    std::cerr << "scoria: not healthy: " << (r.status == 0 ? r.error : r.body) << "\n";
    return 1;
  }
  if (verb == "get" && c.words.size() >= 2) {
    const std::string kind = plural(c.words[1]);
    const std::string target = c.words.size() >= 3 ? object_target(c, kind, c.words[2])
                                                   : http::path_of({"api", "v1", kind});
    const auto got = call(c, "GET", target);
    if (!got) return 1;
    if (c.output == "json") {
      std::cout << got->dump(2) << "\n";
      return 0;
    }
    std::vector<std::vector<std::string>> rows = {header_of(kind)};
    if (got->contains("items")) {
      for (const auto& o : (*got)["items"])
        if (!namespaced(kind) || c.all_namespaces ||
            text(o, {"metadata", "namespace"}, "default") == c.ns)
          rows.push_back(row_of(kind, o));
    } else {
      rows.push_back(row_of(kind, *got));
    }
    if (rows.size() == 1) {
      std::cout << "No resources found\n";
      return 0;
    }
    print_table(rows);
    return 0;
  }
  if (verb == "delete" && c.words.size() >= 3) {
    const std::string kind = plural(c.words[1]);
    const auto done = call(c, "DELETE", object_target(c, kind, c.words[2]));
    if (!done) return 1;
    std::cout << c.words[1] << " \"" << c.words[2] << "\" deleted\n";
    return 0;
  }
  if (verb == "describe" && c.words.size() >= 3 && plural(c.words[1]) == "podgroups") {
    const auto d =
        call(c, "GET", http::path_of({"api", "v1", "podgroups", c.ns, c.words[2], "describe"}));
    if (!d) return 1;
    std::cout << "Name:         " << c.words[2] << "\nNamespace:    " << c.ns
              << "\nPhase:        " << text(*d, {"phase"})
              << "\nMin Member:   " << text(*d, {"minMember"}) << "\n";
    if (d->contains("reason"))
      std::cout << "Conditions:\n  Type           Status  Message\n  Unschedulable  True    "
                << (*d)["reason"].get<std::string>() << "\n";
    return 0;
  }
  if (verb == "top" && c.words.size() >= 2 && plural(c.words[1]) == "queues") {
    const auto t = call(c, "GET", "/api/v1/top/queues");
    if (!t) return 1;
    std::vector<std::vector<std::string>> rows = {
        {"NAME", "CPU(ALLOCATED)", "CPU(DESERVED)", "MEMORY(ALLOCATED)", "MEMORY(DESERVED)"}};
    for (const auto& q : (*t)["queues"]) {
      const auto amount = [&](const char* part, const char* dim) {
        return q.contains(part) && q[part].contains(dim) ? human(dim, q[part][dim].get<double>())
                                                         : std::string("-");
      };
      rows.push_back({q["name"].get<std::string>(), amount("allocated", "cpu"),
                      amount("deserved", "cpu"), amount("allocated", "memory"),
                      amount("deserved", "memory")});
    }
    print_table(rows);
    return 0;
  }
  if (verb == "explain" && c.words.size() >= 2) {
    const auto x = call(c, "GET", http::path_of({"api", "v1", "explain", c.ns, c.words[1]}));
    if (!x) return 1;
    if (c.output == "json")
      std::cout << x->dump(2) << "\n";
    else
      std::cout << scheduler::explanation_table(nlohmann::ordered_json::parse(x->dump()));
    return 0;
  }
  throw InputError("unknown command \"" + verb + "\"\n" + kCtlUsage);
}

}  // namespace

int ctl(std::span<const std::string_view> args) {
  try {
    return run(parse_ctl_args(args));
  } catch (const InputError& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace scoria::cli
