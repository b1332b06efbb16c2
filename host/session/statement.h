// A statement (Volcano's framework.Statement): tentative allocations,
// pipelines and evictions applied to the session at once, then either
// committed as one (binds and evictions reach the cache at close) or undone
// newest first.
#pragma once

#include <scoria/scoria.h>

#include <string>
#include <vector>

#include "session/session.h"

struct scoria_statement {};

namespace scoria::session {

class Statement : public scoria_statement {
 public:
  explicit Statement(Session& ssn) : ssn_(ssn) {}

  scoria_code allocate(Task& task, Node& node);
  scoria_code pipeline(Task& task, Node& node);
  /// Evicts `task`, and with it the other placed pods of a group that is
  /// disrupted only whole (model::PodGroup::disrupt_whole).
  scoria_code evict(Task& task, std::string reason);
  void commit();
  void discard();
  /// Takes over `other`'s operations, after its own; `other` is left empty.
  void merge(Statement& other);
  size_t size() const { return ops_.size(); }
  Session& session() { return ssn_; }

 private:
  enum class Op { Allocate, Pipeline, Evict };
  struct Operation {
    Op op;
    Task* task;
    uint32_t previous_status;
    std::string reason;
  };
  scoria_code place(Task& task, Node& node, uint32_t status, Op op);
  void evict_one(Task& task, std::string reason);

  Session& ssn_;
  std::vector<Operation> ops_;
};

}  // namespace scoria::session
