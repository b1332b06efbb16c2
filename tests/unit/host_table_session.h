// A session made from object text, as plugins see it through the host
// table: the decoder, the cache and a session, for the tests of one host
// function each.
#pragma once

#include <scoria/scoria.h>

#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "abi/host_api.h"
#include "cache/cluster_cache.h"
#include "config/scheduler_config.h"
#include "model/objects.h"
#include "session/session.h"
#include "source/object_loader.h"

namespace scoria::cache {

class HostTableSession : public ::testing::Test {
 protected:
  /// Loads `text` (YAML documents) into the cache and opens a session on it.
  void load(const std::string& text) {
    model::ClusterObjects objects;
    source::parse_objects(text, "objects.yaml", objects);
    source::complete_objects(objects);
    cache_.reset(std::move(objects));
    snap_ = cache_.snapshot();
    ssn_ = std::make_unique<session::Session>(snap_, config_, nullptr);
  }

  const scoria_session* handle() const {
    return reinterpret_cast<const scoria_session*>(ssn_.get());
  }

  const scoria_host_api* api_ = abi::host_api();
  ClusterCache cache_;
  cycle::Snapshot snap_;
  config::SchedulerConfig config_;
  std::unique_ptr<session::Session> ssn_;
};

}  // namespace scoria::cache
