// topology.volcano.sh/v1alpha1 HyperNode: refused where Volcano's CRD
// validation refuses it (a negative tier, no members, a member type other
// than Node or HyperNode, a selector with none or more than one of
// exactMatch, regexMatch and labelMatch, an empty name or pattern), and
// where Scoria could not use it (a pattern that does not compile, a
// regexMatch or labelMatch for a HyperNode member, which Volcano ignores).
#include <regex>

#include "decode/kind_decoders.h"
#include "decode/object_names.h"
#include "decode/scheduling_terms.h"

namespace scoria::decode {

namespace {

using Member = model::HyperNodeMember;

Member member(const FieldReader& r, const Node& m, const FieldPath& at) {
  Member out;
  const std::string type = r.text_field(m, "type", at);
  if (type == "HyperNode")
    out.type = Member::Type::HyperNode;
  else if (type != "Node")
    r.fail(at.field("type"),
           (type.empty() ? std::string("is missing") : quote(type) + " is not a member type") +
               "; write Node or HyperNode");
  const FieldPath sel_path = at.field("selector");
  const Node& sel = r.map_field(m, "selector", at);
  const Node& exact = FieldReader::get(sel, "exactMatch");
  const Node& regex = FieldReader::get(sel, "regexMatch");
  const Node& label = FieldReader::get(sel, "labelMatch");
  const int given =
      FieldReader::present(exact) + FieldReader::present(regex) + FieldReader::present(label);
  if (given != 1)
    r.fail(sel_path, std::string(given == 0 ? "is empty" : "gives more than one match") +
                         "; give one of exactMatch {name}, regexMatch {pattern} and labelMatch "
                         "{matchLabels, matchExpressions}");
  if (FieldReader::present(exact)) {
    const FieldPath p = sel_path.field("exactMatch");
    out.match = Member::Match::Exact;
    out.name = r.text_field(r.mapping(exact, p), "name", p);
    if (out.name.empty()) r.fail(p.field("name"), "is missing; name the member");
    if (auto why = subdomain_error(out.name)) r.fail(p.field("name"), *why);
  } else if (FieldReader::present(regex)) {
    const FieldPath p = sel_path.field("regexMatch");
    if (out.type == Member::Type::HyperNode)
      r.fail(p,
             "selects nodes only (Volcano ignores it for a HyperNode member); name a "
             "HyperNode member with exactMatch");
    out.match = Member::Match::Regex;
    out.pattern = r.text_field(r.mapping(regex, p), "pattern", p);
    if (out.pattern.empty()) r.fail(p.field("pattern"), "is missing; write a regular expression");
    try {
      std::regex check(out.pattern);
    } catch (const std::regex_error& e) {
      r.fail(p.field("pattern"), quote(out.pattern) + " is not a regular expression (" + e.what() +
                                     "); write one such as \"^node-[0-9]+$\"");
    }
  } else {
    const FieldPath p = sel_path.field("labelMatch");
    if (out.type == Member::Type::HyperNode)
      r.fail(p, "selects nodes only; name a HyperNode member with exactMatch");
    out.match = Member::Match::Label;
    out.labels = label_selector(r, r.mapping(label, p), p);
  }
  return out;
}

}  // namespace

model::HyperNode decode_hyper_node(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::HyperNode h;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  const Node& tier = FieldReader::get(spec, "tier");
  if (!FieldReader::present(tier))
    r.fail(spec_path.field("tier"), "is missing; give the HyperNode's tier (1 for the lowest)");
  h.tier = r.int32(tier, spec_path.field("tier"));
  if (h.tier < 0)
    r.fail(spec_path.field("tier"), std::to_string(h.tier) + " is negative; write 0 or more");
  h.tier_name = r.text_field(spec, "tierName", spec_path);
  r.each_map(spec, "members", spec_path,
             [&](const Node& m, const FieldPath& at) { h.members.push_back(member(r, m, at)); });
  if (h.members.empty())
    r.fail(spec_path.field("members"), "is empty; list at least one Node or HyperNode member");
  return h;
}

}  // namespace scoria::decode
