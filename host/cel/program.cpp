#include "cel/program.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "cel/functions.h"

namespace scoria::cel {

namespace {

Value no_overload(std::string_view op, const Value& a, const Value& b) {
  return Error{"no such overload: " + std::string(type_name(a)) + " " + std::string(op) + " " +
               std::string(type_name(b))};
}

Value overflow() { return Error{"integer overflow"}; }

// + - * / % on two ints or two uints, overflow and division by zero
// being errors, as CEL has them.
template <typename T>
Value integer_arithmetic(char o, T x, T y) {
  T r = 0;
  switch (o) {
    case '+':
      return __builtin_add_overflow(x, y, &r) ? overflow() : Value(r);
    case '-':
      return __builtin_sub_overflow(x, y, &r) ? overflow() : Value(r);
    case '*':
      return __builtin_mul_overflow(x, y, &r) ? overflow() : Value(r);
    default:
      if (y == 0) return Error{o == '/' ? "division by zero" : "modulus by zero"};
      if constexpr (std::is_signed_v<T>)
        if (x == std::numeric_limits<T>::min() && y == -1)
          return o == '/' ? overflow() : Value(T{0});
      return o == '/' ? Value(T(x / y)) : Value(T(x % y));
  }
}

// + - * / % on two values of one numeric type (CEL converts none
// implicitly), strings, bytes and lists (+ only).
Value arithmetic(std::string_view op, const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  const char o = op[0];
  if (a.is<int64_t>() && b.is<int64_t>())
    return integer_arithmetic(o, a.as<int64_t>(), b.as<int64_t>());
  if (a.is<uint64_t>() && b.is<uint64_t>())
    return integer_arithmetic(o, a.as<uint64_t>(), b.as<uint64_t>());
  if (a.is<double>() && b.is<double>() && o != '%') {
    const double x = a.as<double>(), y = b.as<double>();
    return o == '+' ? x + y : o == '-' ? x - y : o == '*' ? x * y : x / y;
  }
  if (o == '+') {
    if (a.is<std::string>() && b.is<std::string>())
      return a.as<std::string>() + b.as<std::string>();
    if (a.is<Bytes>() && b.is<Bytes>()) return Bytes{a.as<Bytes>().data + b.as<Bytes>().data};
    if (a.is_list() && b.is_list()) {
      List out = a.list();
      out.insert(out.end(), b.list().begin(), b.list().end());
      return out;
    }
  }
  return no_overload(op, a, b);
}

class Evaluator {
 public:
  Evaluator(const Ast& ast, const Variables& variables, uint64_t limit)
      : ast_(ast), variables_(variables), limit_(limit) {}

  Value run() { return eval(ast_.root); }

 private:
  bool charge(uint64_t units) {
    cost_ += units;
    return cost_ <= limit_;
  }
  Value over_budget() const {
    return Error{"the expression's cost exceeds its limit of " + std::to_string(limit_)};
  }

  const Value* lookup(std::string_view name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == name) return &it->second;
    const auto it = variables_.find(name);
    return it == variables_.end() ? nullptr : &it->second;
  }

  Value select(const Value& target, const std::string& field) {
    if (target.is_error()) return target;
    if (!target.is_map())
      return Error{"no such field '" + field + "' on " + std::string(type_name(target))};
    if (const Value* v = find(target.map(), Value(field))) return *v;
    if (target.map().absent) return *target.map().absent;
    return Error{"no such key: " + field};
  }

  Value index(const Value& target, const Value& key) {
    if (target.is_error()) return target;
    if (key.is_error()) return key;
    if (target.is_list()) {
      const List& l = target.list();
      int64_t i = 0;
      if (key.is<int64_t>()) {
        i = key.as<int64_t>();
      } else if (key.is<uint64_t>() && key.as<uint64_t>() <= l.size()) {
        i = static_cast<int64_t>(key.as<uint64_t>());
      } else if (key.is<double>() && std::trunc(key.as<double>()) == key.as<double>() &&
                 std::abs(key.as<double>()) < 9.0e18) {
        i = static_cast<int64_t>(key.as<double>());
      } else if (!key.is<uint64_t>()) {
        return Error{"no such overload: list[" + std::string(type_name(key)) + "]"};
      } else {
        i = -1;
      }
      if (i < 0 || static_cast<uint64_t>(i) >= l.size())
        return Error{"index out of range: " + debug_string(key)};
      return l[static_cast<size_t>(i)];
    }
    if (target.is_map()) {
      if (const Value* v = find(target.map(), key)) return *v;
      if (target.map().absent) return *target.map().absent;
      return Error{"no such key: " + debug_string(key)};
    }
    return Error{"no such overload: " + std::string(type_name(target)) + "[" +
                 std::string(type_name(key)) + "]"};
  }

  // && and ||: an operand that decides wins over an error in the other.
  Value logical(const Expr& e, bool is_and) {
    const Value left = eval(e.args[0]);
    if (left.is<bool>() && left.as<bool>() != is_and) return left;
    const Value right = eval(e.args[1]);
    if (right.is<bool>() && right.as<bool>() != is_and) return right;
    if (left.is_error()) return left;
    if (right.is_error()) return right;
    if (!left.is<bool>() || !right.is<bool>())
      return no_overload(is_and ? "&&" : "||", left, right);
    return is_and;  // both true for &&, both false for ||
  }

  Value binary(const Expr& e) {
    const Value a = eval(e.args[0]);
    const Value b = eval(e.args[1]);
    const std::string& op = e.name;
    if (op == "==" || op == "!=") {
      const Value eq = equals(a, b);
      if (eq.is_error() || op == "==") return eq;
      return !eq.as<bool>();
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      const Value c = compare(a, b);
      if (c.is_error()) return c;
      const int64_t s = c.as<int64_t>();
      return op == "<" ? s < 0 : op == "<=" ? s <= 0 : op == ">" ? s > 0 : s >= 0;
    }
    if (op == "in") {
      if (a.is_error()) return a;
      if (b.is_error()) return b;
      if (b.is_list()) {
        for (const Value& item : b.list()) {
          const Value eq = equals(a, item);
          if (eq.is<bool>() && eq.as<bool>()) return true;
        }
        return false;
      }
      if (b.is_map()) return find(b.map(), a) != nullptr;
      return no_overload("in", a, b);
    }
    const Value r = arithmetic(op, a, b);
    if (r.is<std::string>() && !charge(r.as<std::string>().size() / 8)) return over_budget();
    if (r.is_list() && !charge(r.list().size())) return over_budget();
    return r;
  }

  Value comprehension(const Expr& e) {
    const Value range = eval(e.args[0]);
    if (range.is_error()) return range;
    std::vector<Value> items;
    if (range.is_list()) {
      items = range.list();
    } else if (range.is_map()) {
      for (const auto& [key, value] : range.map()) items.push_back(key);
    } else {
      return Error{e.name + "() needs a list or a map, not " + std::string(type_name(range))};
    }
    const std::string& m = e.name;
    List out;
    Value error;
    bool has_error = false;
    int64_t trues = 0;
    for (const Value& item : items) {
      if (!charge(1)) return over_budget();
      scope_.emplace_back(e.var, item);
      const Value v = eval(e.args[1]);
      Value transformed;
      if (m == "map" && e.args.size() == 3 && v.is<bool>() && v.as<bool>())
        transformed = eval(e.args[2]);
      scope_.pop_back();
      if (m == "map") {
        if (e.args.size() == 3) {
          if (v.is_error()) return v;
          if (!v.is<bool>()) return Error{"map() filter must be a bool"};
          if (!v.as<bool>()) continue;
          if (transformed.is_error()) return transformed;
          out.push_back(transformed);
        } else {
          if (v.is_error()) return v;
          out.push_back(v);
        }
        continue;
      }
      if (v.is_error()) {
        if (!has_error) error = v;
        has_error = true;
        continue;
      }
      if (!v.is<bool>())
        return Error{m + "() predicate must be a bool, not " + std::string(type_name(v))};
      const bool b = v.as<bool>();
      if (m == "all" && !b) return false;
      if (m == "exists" && b) return true;
      if (m == "exists_one" && b) ++trues;
      if (m == "filter" && b) out.push_back(item);
    }
    if (m == "map" || m == "filter") return has_error ? error : Value(std::move(out));
    if (has_error) return error;
    if (m == "all") return true;
    if (m == "exists") return false;
    return trues == 1;  // exists_one
  }

  Value eval(uint32_t n) {
    if (!charge(1)) return over_budget();
    const Expr& e = ast_.nodes[n];
    switch (e.kind) {
      case Expr::Kind::Literal:
        return e.literal;
      case Expr::Kind::Ident:
        if (const Value* v = lookup(e.name)) return *v;
        return Error{"undeclared reference to '" + e.name + "'"};
      case Expr::Kind::Select:
        return select(eval(e.args[0]), e.name);
      case Expr::Kind::Index: {
        const Value target = eval(e.args[0]);
        return index(target, eval(e.args[1]));
      }
      case Expr::Kind::Has: {
        const Value target = eval(e.args[0]);
        if (target.is_error()) return target;
        if (!target.is_map())
          return Error{"has() needs a map, not " + std::string(type_name(target))};
        return find(target.map(), Value(e.name)) != nullptr;
      }
      case Expr::Kind::ListOf: {
        List out;
        out.reserve(e.args.size());
        for (uint32_t a : e.args) {
          Value v = eval(a);
          if (v.is_error()) return v;
          out.push_back(std::move(v));
        }
        return out;
      }
      case Expr::Kind::MapOf: {
        Map out;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          Value key = eval(e.args[i]);
          if (key.is_error()) return key;
          if (!key.is<bool>() && !key.is<int64_t>() && !key.is<uint64_t>() &&
              !key.is<std::string>())
            return Error{"a map key cannot be a " + std::string(type_name(key))};
          if (find(out, key) != nullptr) return Error{"a map key repeats: " + debug_string(key)};
          Value value = eval(e.args[i + 1]);
          if (value.is_error()) return value;
          out.emplace_back(std::move(key), std::move(value));
        }
        return out;
      }
      case Expr::Kind::Not: {
        const Value v = eval(e.args[0]);
        if (v.is_error()) return v;
        if (!v.is<bool>()) return Error{"no such overload: !" + std::string(type_name(v))};
        return !v.as<bool>();
      }
      case Expr::Kind::Negate: {
        const Value v = eval(e.args[0]);
        if (v.is_error()) return v;
        if (v.is<int64_t>())
          return v.as<int64_t>() == std::numeric_limits<int64_t>::min() ? overflow()
                                                                        : Value(-v.as<int64_t>());
        if (v.is<double>()) return -v.as<double>();
        return Error{"no such overload: -" + std::string(type_name(v))};
      }
      case Expr::Kind::And:
        return logical(e, true);
      case Expr::Kind::Or:
        return logical(e, false);
      case Expr::Kind::Ternary: {
        const Value c = eval(e.args[0]);
        if (c.is_error()) return c;
        if (!c.is<bool>()) return Error{"the condition of ?: must be a bool"};
        return eval(e.args[c.as<bool>() ? 1 : 2]);
      }
      case Expr::Kind::Binary:
        return binary(e);
      case Expr::Kind::Comprehension:
        return comprehension(e);
      case Expr::Kind::Call: {
        std::vector<Value> args;
        args.reserve(e.args.size());
        for (uint32_t a : e.args) args.push_back(eval(a));
        for (const Value& a : args)
          if (a.is_error()) return a;
        uint64_t cost = 0;
        Value r = call(e.name, e.member, args, cost);
        if (!charge(cost)) return over_budget();
        return r;
      }
    }
    return Error{"unknown expression"};
  }

  const Ast& ast_;
  const Variables& variables_;
  uint64_t limit_;
  uint64_t cost_ = 0;
  std::vector<std::pair<std::string, Value>> scope_;
};

}  // namespace

std::variant<Program, ParseError> Program::compile(std::string_view text) {
  auto parsed = parse(text);
  if (auto* error = std::get_if<ParseError>(&parsed)) return *error;
  return Program(std::move(std::get<Ast>(parsed)));
}

namespace {

// The first identifier neither `variables` nor an enclosing macro's
// variable names, in source order; null if none.
const Expr* undeclared(const Ast& ast, uint32_t at, std::span<const std::string_view> variables,
                       std::vector<std::string_view>& scope) {
  const Expr& e = ast.nodes[at];
  if (e.kind == Expr::Kind::Ident) {
    const auto named = [&](std::string_view v) { return v == e.name; };
    if (std::any_of(variables.begin(), variables.end(), named) ||
        std::any_of(scope.begin(), scope.end(), named))
      return nullptr;
    return &e;
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const bool inside = e.kind == Expr::Kind::Comprehension && i > 0;
    if (inside) scope.push_back(e.var);
    const Expr* found = undeclared(ast, e.args[i], variables, scope);
    if (inside) scope.pop_back();
    if (found != nullptr) return found;
  }
  return nullptr;
}

}  // namespace

std::variant<Program, ParseError> Program::compile(std::string_view text,
                                                   std::span<const std::string_view> variables) {
  auto compiled = compile(text);
  if (auto* program = std::get_if<Program>(&compiled)) {
    std::vector<std::string_view> scope;
    if (const Expr* e = undeclared(program->ast_, program->ast_.root, variables, scope))
      return ParseError{"undeclared reference to '" + e->name + "' (in container '')", e->at};
  }
  return compiled;
}

Value Program::evaluate(const Variables& variables, uint64_t cost_limit) const {
  return Evaluator(ast_, variables, cost_limit).run();
}

}  // namespace scoria::cel
