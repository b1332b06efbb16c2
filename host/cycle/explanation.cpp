#include "cycle/explanation.h"

#include <charconv>

namespace scoria::cycle {

namespace {

std::string number(double x) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

// Why a node that does not fit was refused: the first check that refused it.
std::string refusal(const Explanation::NodeRow& row) {
  if (!row.resources.empty()) return "refused: " + row.resources;
  for (const auto& p : row.predicates)
    if (p.code != SCORIA_OK) return "refused by " + p.plugin + ": " + p.reason;
  return "refused";
}

}  // namespace

void Explanation::settle() {
  const NodeRow* winner = nullptr;
  for (const NodeRow& row : nodes)
    if (!chosen.empty() && row.name == chosen) winner = &row;
  for (NodeRow& row : nodes) {
    if (!predicates_done) {
      row.result = "not examined";
    } else if (!row.fits) {
      row.result = refusal(row);
    } else if (!row.examined) {
      row.result = "fits, but the search had found its " + std::to_string(examined) +
                   " feasible nodes before reaching it (adaptive node sampling; see "
                   "percentage_of_nodes_to_find)";
    } else if (!row.scored) {
      row.result = "fits; not scored (the action placed the task without scoring)";
    } else if (winner == nullptr) {
      row.result = "fits; no node was chosen";
    } else if (&row == winner) {
      row.result = chosen_by.empty() ? "chosen: highest total score"
                                     : "chosen by " + chosen_by + "'s best-node choice";
    } else if (!chosen_by.empty()) {
      row.result = chosen_by + "'s best-node choice picked " + chosen;
    } else if (row.total < winner->total) {
      row.result = "lower total score (" + number(row.total) + " < " + number(winner->total) + ")";
    } else {
      row.result = "same total as " + chosen + "; a tie goes to the node listed first";
    }
  }
}

}  // namespace scoria::cycle
