#include "model/quantity.h"

#include <scoria/quantity.hpp>

#include <stdexcept>
#include <string>

namespace scoria::model {

namespace {

constexpr std::string_view kExamples = "write e.g. \"500m\", \"2\", \"1.5Gi\" or \"1e3\"";

}  // namespace

double parse_quantity(std::string_view text) {
  if (text.empty()) {
    throw std::invalid_argument("an empty string is not a quantity; " + std::string(kExamples));
  }
  std::string why;
  const std::optional<double> value = scoria::parse_quantity(text, &why);
  if (!value) {
    throw std::invalid_argument("\"" + std::string(text) + "\" is not a quantity (" + why + "); " +
                                std::string(kExamples));
  }
  return *value;
}

std::string format_quantity(std::string_view name, double value) {
  return scoria::format_resource(name, value);
}

std::string format_device_amount(std::string_view name, double value) {
  const size_t at = name.find(".deviceclass/");
  const std::string_view dim =
      at == std::string_view::npos ? std::string_view() : name.substr(0, at);
  return scoria::format_resource(dim, scoria::to_resource_units(dim, value));
}

}  // namespace scoria::model
