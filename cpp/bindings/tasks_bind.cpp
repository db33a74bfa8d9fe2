// Embind registration of the task generators the page and the node tests read directly:
//   formatDate(y, m, d, f) -> {text, iso, locale, style}; dateFormats() -> [{locale, style}]
//   convexHull(xy) -> [indices]   (xy: flat [x0, y0, x1, y1, ...], CCW from the lowest index)
//   tspOptimal(xy) -> [indices]   (Held-Karp, n <= 12)
// Every C++ exception becomes a JS Error carrying its message.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <exception>
#include <string>
#include <vector>

#include "bindings/convert.hpp"
#include "core/check.hpp"
#include "data/date_task.hpp"
#include "data/geometry.hpp"

using emscripten::val;

namespace {

using attnlab::bind::guarded;

val format_date_js(val year, val month, val day, val format) {
  return guarded([&] {
    using namespace attnlab::bind;
    const int y = int_arg(year, "formatDate: year", -100000, 100000);
    const int m = int_arg(month, "formatDate: month", -1000, 1000);
    const int d = int_arg(day, "formatDate: day", -1000, 1000);
    const int f = int_arg(format, "formatDate: format", 0, attnlab::kDateFormats - 1);
    AL_CHECK(m >= 1 && m <= 12 && d >= 1 && d <= 31, "formatDate: month 1..12 and day 1..31");
    const attnlab::CivilDate cd{y, m, d};
    AL_CHECK(attnlab::civil_from_days(attnlab::days_from_civil(cd)).day == d,
             "formatDate: " << y << "-" << m << "-" << d << " is not a date");
    val o = val::object();
    o.set("text", attnlab::format_date(cd, f));
    o.set("iso", attnlab::iso_date(cd));
    o.set("locale", attnlab::date_format_locale(f));
    o.set("style", attnlab::date_format_style(f));
    return o;
  });
}

val date_formats_js() {
  val a = val::array();
  for (int f = 0; f < attnlab::kDateFormats; ++f) {
    val o = val::object();
    o.set("locale", attnlab::date_format_locale(f));
    o.set("style", attnlab::date_format_style(f));
    a.call<void>("push", o);
  }
  return a;
}

template <class Fn>
val points_call(const val& xy, Fn fn) {
  return guarded([&] {
    const std::vector<float> p = attnlab::bind::to_floats(xy, "points", false);
    AL_CHECK(p.size() % 2 == 0, "expected x, y pairs, got " << p.size() << " numbers");
    const std::vector<int> idx = fn(p);
    val a = val::array();
    for (int i : idx) a.call<void>("push", i);
    return a;
  });
}

val convex_hull_js(val xy) { return points_call(xy, attnlab::convex_hull); }
val tsp_optimal_js(val xy) { return points_call(xy, attnlab::tsp_optimal); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_tasks) {
  emscripten::function("formatDate", &format_date_js);
  emscripten::function("dateFormats", &date_formats_js);
  emscripten::function("convexHull", &convex_hull_js);
  emscripten::function("tspOptimal", &tsp_optimal_js);
}
