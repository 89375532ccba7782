#include "report/svg_plots.h"

#include "report/text_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kforge::svg {
namespace {

using report_text::html_escape;
using report_text::number;

// Plot area inside a fixed-size canvas; the SVG scales to the page width via viewBox.
struct Frame {
  double width = 760, height = 320;
  double left = 72, right = 24, top = 28, bottom = 48;
  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return height - bottom; }  // bottom edge (y grows downwards)
  double y1() const { return top; }
};

// Maps data values onto pixels, linearly or logarithmically.
struct Scale {
  double lo, hi, px_lo, px_hi;
  bool log = false;
  double operator()(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double t = ((log ? std::log10(std::max(v, 1e-300)) : v) - a) / (b - a);
    return px_lo + t * (px_hi - px_lo);
  }
};

// Round tick positions covering [lo, hi]: 1/2/5 x 10^k steps on a linear axis,
// powers of ten on a log axis.
std::vector<double> ticks(double lo, double hi, bool log, int target = 5) {
  std::vector<double> out;
  if (log) {
    for (double p = std::floor(std::log10(lo)); p <= std::ceil(std::log10(hi)); ++p) {
      const double v = std::pow(10.0, p);
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push_back(v);
    }
    return out;
  }
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) {
      step = m * magnitude;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return out;
}

std::string open_svg(const Frame& f, const std::string& label) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "class=\"plot\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
      f.width, f.height, f.width, f.height, html_escape(label), f.width, f.height);
}

std::string text(double x, double y, const std::string& content, const std::string& anchor = "middle",
                 const std::string& extra = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\"{}>{}</text>\n", x, y, anchor,
                     extra, html_escape(content));
}

// Grid lines, tick labels and axis titles.
std::string axes(const Frame& f, const Scale& x, const std::vector<double>& x_ticks,
                 const Scale& y, const std::vector<double>& y_ticks, const std::string& x_title,
                 const std::string& y_title, bool integer_x = false) {
  std::string out = "<g class=\"axes\" stroke=\"#e0e0e0\">\n";
  for (double t : y_ticks)
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n", f.x0(),
                       y(t), f.x1(), y(t));
  for (double t : x_ticks)
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n", x(t),
                       f.y0(), x(t), f.y1());
  out += "</g>\n";
  out += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
      "stroke=\"#9e9e9e\"/>\n",
      f.x0(), f.y1(), f.x1() - f.x0(), f.y0() - f.y1());
  // Log axes tick at powers of ten: "0.01", "100", not "100." or "1.00".
  auto label = [](const Scale& scale, double t) { return scale.log ? fmt::format("{:g}", t) : number(t); };
  for (double t : y_ticks) out += text(f.x0() - 6, y(t) + 4, label(y, t), "end", " fill=\"#555\"");
  for (double t : x_ticks)
    out += text(x(t), f.y0() + 16, integer_x ? fmt::format("{:.0f}", t) : label(x, t), "middle",
                " fill=\"#555\"");
  out += text((f.x0() + f.x1()) / 2, f.y0() + 34, x_title);
  out += fmt::format(
      "<text x=\"16\" y=\"{:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1f})\">{}</text>\n",
      (f.y0() + f.y1()) / 2, (f.y0() + f.y1()) / 2, html_escape(y_title));
  return out;
}

// Linear y range with 8% headroom; a flat series still gets a visible range.
std::pair<double, double> padded_range(double lo, double hi) {
  if (hi <= lo) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    return {std::max(0.0, lo - pad), hi + pad};
  }
  const double pad = (hi - lo) * 0.08;
  return {std::max(0.0, lo - pad), hi + pad};
}

std::optional<double> get(const nlohmann::json& object, const char* key) {
  if (object.is_object())
    if (auto it = object.find(key); it != object.end() && it->is_number()) return it->get<double>();
  return std::nullopt;
}

// Stable pseudo-random jitter in [-0.3, 0.3] so candidates of one generation do not overlap.
double jitter(std::int64_t id) {
  auto h = static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return (static_cast<double>(h % 1000) / 999.0 - 0.5) * 0.6;
}

}  // namespace

std::string status_colour(const std::string& status) {
  if (status == "correct") return "#2e7d32";
  if (status == "incorrect") return "#ef6c00";
  if (status == "compile_error") return "#c62828";
  if (status == "runtime_error") return "#6a1b9a";
  if (status == "timeout") return "#795548";
  return "#9e9e9e";  // pending, compiling
}

std::string best_latency_per_generation(const std::vector<GenerationRecord>& generations,
                                        std::optional<double> baseline_ms) {
  std::vector<std::pair<double, double>> points;
  for (const auto& g : generations)
    if (g.best_median_ms) points.emplace_back(g.generation, *g.best_median_ms);
  if (points.empty()) return "";
  Frame f;
  double lo = points.front().second, hi = lo;
  for (const auto& [gen, ms] : points) lo = std::min(lo, ms), hi = std::max(hi, ms);
  if (baseline_ms) lo = std::min(lo, *baseline_ms), hi = std::max(hi, *baseline_ms);
  const auto [y_lo, y_hi] = padded_range(lo, hi);
  const double x_lo = points.front().first, x_hi = std::max(points.back().first, x_lo + 1);
  Scale x{x_lo - 0.3, x_hi + 0.3, f.x0(), f.x1()};
  Scale y{y_lo, y_hi, f.y0(), f.y1()};
  std::vector<double> x_ticks;
  for (double t : ticks(x_lo, x_hi, false, 10))
    if (std::fabs(t - std::round(t)) < 1e-9) x_ticks.push_back(t);

  std::string out = open_svg(f, "best latency per generation");
  out += axes(f, x, x_ticks, y, ticks(y_lo, y_hi, false), "generation", "best median (ms)", true);
  if (baseline_ms) {
    out += fmt::format(
        "<line class=\"baseline\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#757575\" stroke-dasharray=\"6 4\"/>\n",
        f.x0(), y(*baseline_ms), f.x1(), y(*baseline_ms));
    out += text(f.x1() - 4, y(*baseline_ms) - 5, "baseline " + number(*baseline_ms) + " ms", "end",
                " fill=\"#555\"");
  }
  std::string polyline;
  for (const auto& [gen, ms] : points) polyline += fmt::format("{:.1f},{:.1f} ", x(gen), y(ms));
  out += "<polyline class=\"best-line\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2.5\" points=\"" +
         polyline + "\"/>\n";
  for (const auto& [gen, ms] : points)
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#1565c0\"><title>generation {:.0f}: "
        "{} ms</title></circle>\n",
        x(gen), y(ms), gen, number(ms));
  return out + "</svg>\n";
}

std::string candidate_scatter(const std::vector<CandidateRecord>& candidates,
                              std::optional<double> baseline_ms) {
  if (std::none_of(candidates.begin(), candidates.end(),
                   [](const CandidateRecord& c) { return !is_in_flight(c.status); }))
    return "";
  Frame f;
  f.top = 64;  // room for the failure band above the plot
  f.bottom = 70;  // and the legend below
  f.height = 380;
  int max_gen = 0;
  double lo = 0, hi = 0;
  bool any_time = false;
  for (const auto& c : candidates) {
    max_gen = std::max(max_gen, c.generation);
    if (c.status == CandidateStatus::Correct && c.median_ms()) {
      const double ms = *c.median_ms();
      lo = any_time ? std::min(lo, ms) : ms;
      hi = any_time ? std::max(hi, ms) : ms;
      any_time = true;
    }
  }
  if (baseline_ms) {
    lo = any_time ? std::min(lo, *baseline_ms) : *baseline_ms;
    hi = any_time ? std::max(hi, *baseline_ms) : *baseline_ms;
    any_time = true;
  }
  if (!any_time) lo = 0, hi = 1;
  // A log axis keeps the interesting fast end readable when a few candidates are very slow.
  const bool log = lo > 0 && hi / lo > 20;
  auto [y_lo, y_hi] = log ? std::pair<double, double>{lo / 1.3, hi * 1.3} : padded_range(lo, hi);
  Scale x{-0.6, max_gen + 0.6, f.x0(), f.x1()};
  Scale y{y_lo, y_hi, f.y0(), f.y1(), log};
  std::vector<double> x_ticks;
  for (double t : ticks(0, std::max(1, max_gen), false, 10))
    if (t <= max_gen + 1e-9 && std::fabs(t - std::round(t)) < 1e-9) x_ticks.push_back(t);

  std::string out = open_svg(f, "latency of every candidate by generation");
  out += axes(f, x, x_ticks, y, ticks(y_lo, y_hi, log), "generation",
              log ? "median (ms, log scale)" : "median (ms)", true);
  const double band_top = 8, band_bottom = f.y1() - 8;
  out += fmt::format(
      "<rect class=\"fail-band\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "fill=\"#fbe9e7\" stroke=\"#ffccbc\"/>\n",
      f.x0(), band_top, f.x1() - f.x0(), band_bottom - band_top);
  out += text(f.x0() - 6, (band_top + band_bottom) / 2 + 4, "failed", "end", " fill=\"#b71c1c\"");
  if (baseline_ms) {
    out += fmt::format(
        "<line class=\"baseline\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#757575\" stroke-dasharray=\"6 4\"/>\n",
        f.x0(), y(*baseline_ms), f.x1(), y(*baseline_ms));
    out += text(f.x1() - 4, y(*baseline_ms) - 5, "baseline", "end", " fill=\"#555\"");
  }
  for (const auto& c : candidates) {
    if (is_in_flight(c.status)) continue;  // not evaluated: nothing to place
    const std::string status = to_string(c.status);
    const double cx = x(c.generation + jitter(c.id));
    double cy;
    if (c.status == CandidateStatus::Correct && c.median_ms()) {
      cy = y(*c.median_ms());
    } else {
      // Spread the failures vertically inside the band, by id, so they stay countable.
      cy = band_top + 6 + std::fabs(jitter(c.id * 7 + 3)) / 0.3 * (band_bottom - band_top - 12);
    }
    out += fmt::format(
        "<circle class=\"candidate {}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" "
        "fill-opacity=\"0.8\"><title>#{} {} ({}){}</title></circle>\n",
        status, cx, cy, status_colour(status), c.id, html_escape(c.operator_name), status,
        c.median_ms() ? html_escape(": " + number(*c.median_ms()) + " ms") : "");
  }
  // Legend.
  double lx = f.x0();
  const double ly = f.height - 14;
  for (const char* status : {"correct", "incorrect", "compile_error", "runtime_error", "timeout"}) {
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/>\n", lx + 5, ly - 4,
                       status_colour(status));
    out += text(lx + 14, ly, status, "start");
    lx += 22 + 8.0 * std::string(status).size();
  }
  return out + "</svg>\n";
}

std::string lineage_chain(const std::vector<CandidateRecord>& lineage,
                          std::optional<double> baseline_ms) {
  if (lineage.empty()) return "";
  constexpr double kBoxW = 150, kBoxH = 62, kGapX = 34, kGapY = 36, kMargin = 16;
  constexpr std::size_t kPerRow = 4;
  const std::size_t rows = (lineage.size() + kPerRow - 1) / kPerRow;
  Frame f;
  f.width = 2 * kMargin + kPerRow * kBoxW + (kPerRow - 1) * kGapX;
  f.height = 2 * kMargin + rows * kBoxH + (rows - 1) * kGapY;
  std::string out = open_svg(f, "lineage of the best candidate");
  out += "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
         "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
         "fill=\"#616161\"/></marker></defs>\n";
  auto box_x = [&](std::size_t i) { return kMargin + (i % kPerRow) * (kBoxW + kGapX); };
  auto box_y = [&](std::size_t i) { return kMargin + (i / kPerRow) * (kBoxH + kGapY); };
  for (std::size_t i = 0; i + 1 < lineage.size(); ++i) {
    const double x1 = box_x(i), y1 = box_y(i), x2 = box_x(i + 1), y2 = box_y(i + 1);
    if (y1 == y2) {
      out += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#616161\" "
          "stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n",
          x1 + kBoxW, y1 + kBoxH / 2, x2 - 2, y2 + kBoxH / 2);
    } else {  // wrap to the next row: down, left, down
      const double mid = y1 + kBoxH + kGapY / 2;
      out += fmt::format(
          "<path d=\"M{:.1f},{:.1f} V{:.1f} H{:.1f} V{:.1f}\" fill=\"none\" stroke=\"#616161\" "
          "stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n",
          x1 + kBoxW / 2, y1 + kBoxH, mid, x2 + kBoxW / 2, y2 - 2);
    }
  }
  for (std::size_t i = 0; i < lineage.size(); ++i) {
    const auto& c = lineage[i];
    const double bx = box_x(i), by = box_y(i);
    const bool last = i + 1 == lineage.size();
    out += fmt::format(
        "<g class=\"lineage-node\"><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" rx=\"6\" "
        "fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>\n",
        bx, by, kBoxW, kBoxH, last ? "#e3f2fd" : "#fafafa", last ? "#1565c0" : "#bdbdbd",
        last ? 2 : 1);
    out += text(bx + kBoxW / 2, by + 18, "#" + std::to_string(c.id) + " " + c.operator_name,
                "middle", " font-weight=\"bold\"");
    std::string timing = c.median_ms() ? number(*c.median_ms()) + " ms" : to_string(c.status);
    if (c.median_ms() && baseline_ms && *c.median_ms() > 0)
      timing += " (" + number(*baseline_ms / *c.median_ms()) + "x)";
    out += text(bx + kBoxW / 2, by + 36, timing);
    std::string note = report_text::first_line(c.strategy, 22);
    if (c.parent_ids.size() > 1) {
      note = "x";
      for (std::size_t p = 1; p < c.parent_ids.size(); ++p)
        note += (p > 1 ? ",#" : " #") + std::to_string(c.parent_ids[p]);
    }
    out += text(bx + kBoxW / 2, by + 53, note, "middle", " fill=\"#616161\" font-size=\"11\"");
    out += "<title>" + html_escape(c.strategy.empty() ? c.operator_name : c.strategy) + "</title></g>\n";
  }
  return out + "</svg>\n";
}

std::string roofline(const nlohmann::json& baseline_profile, const nlohmann::json& best_profile) {
  struct Point {
    std::string label, colour;
    double intensity, gflops;
  };
  std::optional<double> peak_gflops = get(best_profile, "peak_gflops");
  if (!peak_gflops) peak_gflops = get(baseline_profile, "peak_gflops");
  std::optional<double> peak_gbps = get(best_profile, "peak_gbps");
  if (!peak_gbps) peak_gbps = get(baseline_profile, "peak_gbps");
  if (!peak_gflops || !peak_gbps || *peak_gflops <= 0 || *peak_gbps <= 0) return "";
  std::vector<Point> points;
  auto add = [&](const nlohmann::json& profile, const char* label, const char* colour) {
    auto gflops = get(profile, "achieved_gflops");
    auto intensity = get(profile, "arithmetic_intensity");
    auto gbps = get(profile, "achieved_gbps");
    if (!intensity && gflops && gbps && *gbps > 0) intensity = *gflops / *gbps;
    if (gflops && intensity && *gflops > 0 && *intensity > 0)
      points.push_back({label, colour, *intensity, *gflops});
  };
  add(baseline_profile, "baseline", "#757575");
  add(best_profile, "best", "#1565c0");
  if (points.empty()) return "";

  const double ridge = *peak_gflops / *peak_gbps;
  double x_lo = ridge, x_hi = ridge, y_lo = *peak_gflops;
  for (const auto& p : points)
    x_lo = std::min(x_lo, p.intensity), x_hi = std::max(x_hi, p.intensity), y_lo = std::min(y_lo, p.gflops);
  x_lo = std::pow(10.0, std::floor(std::log10(x_lo / 2)));
  x_hi = std::pow(10.0, std::ceil(std::log10(x_hi * 2)));
  y_lo = std::pow(10.0, std::floor(std::log10(std::min(y_lo, *peak_gbps * x_lo) / 2)));
  const double y_hi = std::pow(10.0, std::ceil(std::log10(*peak_gflops * 2)));
  Frame f;
  f.height = 360;
  Scale x{x_lo, x_hi, f.x0(), f.x1(), true};
  Scale y{y_lo, y_hi, f.y0(), f.y1(), true};
  std::string out = open_svg(f, "roofline");
  out += axes(f, x, ticks(x_lo, x_hi, true), y, ticks(y_lo, y_hi, true),
              "arithmetic intensity (FLOP/byte)", "GFLOP/s");
  out += fmt::format(
      "<polyline class=\"roof\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"2.5\" "
      "points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>\n",
      x(x_lo), y(*peak_gbps * x_lo), x(ridge), y(*peak_gflops), x(x_hi), y(*peak_gflops));
  out += text(x(x_hi) - 6, y(*peak_gflops) - 6, "peak " + number(*peak_gflops) + " GFLOP/s", "end",
              " fill=\"#c62828\"");
  // The bandwidth label sits just below the middle of the sloped part of the roof.
  const double slope_mid = std::sqrt(x_lo * ridge);
  out += text(x(slope_mid) + 8, y(*peak_gbps * slope_mid) + 18, number(*peak_gbps) + " GB/s", "start",
              " fill=\"#c62828\"");
  if (points.size() == 2)
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#90caf9\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
        x(points[0].intensity), y(points[0].gflops), x(points[1].intensity), y(points[1].gflops));
  for (const auto& p : points) {
    out += fmt::format(
        "<circle class=\"roof-point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"{}\"><title>{}: "
        "{} FLOP/byte, {} GFLOP/s</title></circle>\n",
        x(p.intensity), y(p.gflops), p.colour, p.label, number(p.intensity), number(p.gflops));
    out += text(x(p.intensity) + 9, y(p.gflops) + 4, p.label, "start",
                " fill=\"" + p.colour + "\" font-weight=\"bold\"");
  }
  return out + "</svg>\n";
}

}  // namespace kforge::svg
