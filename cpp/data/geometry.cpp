// Convex hull, polygon checks and Held-Karp (see geometry.hpp).
#include "data/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.hpp"

namespace attnlab {

namespace {
double cross(const std::vector<float>& p, int o, int a, int b) {
  return (double(p[2 * a]) - p[2 * o]) * (double(p[2 * b + 1]) - p[2 * o + 1]) -
         (double(p[2 * a + 1]) - p[2 * o + 1]) * (double(p[2 * b]) - p[2 * o]);
}
double dist(const std::vector<float>& p, int a, int b) {
  return std::hypot(double(p[2 * a]) - p[2 * b], double(p[2 * a + 1]) - p[2 * b + 1]);
}
bool segments_cross(const std::vector<float>& p, int a, int b, int c, int d) {
  const double d1 = cross(p, a, b, c), d2 = cross(p, a, b, d);
  const double d3 = cross(p, c, d, a), d4 = cross(p, c, d, b);
  return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0)) && d1 != 0 && d2 != 0 && d3 != 0 &&
         d4 != 0;
}
}  // namespace

std::vector<int> convex_hull(const std::vector<float>& pts) {
  const int n = int(pts.size() / 2);
  AL_CHECK(n >= 3, "convex hull needs at least 3 points, got " << n);
  for (float v : pts) AL_CHECK(std::isfinite(v), "convex hull: point coordinates must be finite");
  std::vector<int> idx(size_t(n), 0);
  for (int i = 0; i < n; ++i) idx[size_t(i)] = i;
  std::sort(idx.begin(), idx.end(), [&](int a, int b) {
    return pts[2 * a] < pts[2 * b] || (pts[2 * a] == pts[2 * b] && pts[2 * a + 1] < pts[2 * b + 1]);
  });
  std::vector<int> h(2 * size_t(n));
  int k = 0;
  for (int i = 0; i < n; ++i) {  // lower hull
    while (k >= 2 && cross(pts, h[k - 2], h[k - 1], idx[i]) <= 0) --k;
    h[k++] = idx[i];
  }
  for (int i = n - 2, t = k + 1; i >= 0; --i) {  // upper hull
    while (k >= t && cross(pts, h[k - 2], h[k - 1], idx[i]) <= 0) --k;
    h[k++] = idx[i];
  }
  h.resize(size_t(k - 1));
  std::rotate(h.begin(), std::min_element(h.begin(), h.end()), h.end());
  return h;
}

bool is_simple_polygon(const std::vector<float>& pts, const std::vector<int>& order) {
  const int m = int(order.size()), n = int(pts.size() / 2);
  if (m < 3) return false;
  std::vector<char> seen(size_t(n), 0);
  for (int v : order) {
    if (v < 0 || v >= n || seen[size_t(v)]) return false;
    seen[size_t(v)] = 1;
  }
  for (int i = 0; i < m; ++i)
    for (int j = i + 2; j < m; ++j) {
      if (i == 0 && j == m - 1) continue;  // adjacent through the closing edge
      if (segments_cross(pts, order[i], order[(i + 1) % m], order[j], order[(j + 1) % m]))
        return false;
    }
  return true;
}

double polygon_area(const std::vector<float>& pts, const std::vector<int>& order) {
  if (!is_simple_polygon(pts, order)) return 0.0;
  double a = 0;
  const size_t m = order.size();
  for (size_t i = 0; i < m; ++i) {
    const int p = order[i], q = order[(i + 1) % m];
    a += double(pts[2 * p]) * pts[2 * q + 1] - double(pts[2 * q]) * pts[2 * p + 1];
  }
  return std::abs(a) / 2;
}

double tour_length(const std::vector<float>& pts, const std::vector<int>& order) {
  double len = 0;
  for (size_t i = 0; i < order.size(); ++i)
    len += dist(pts, order[i], order[(i + 1) % order.size()]);
  return len;
}

// Held-Karp: best[S][j] = shortest path from 0 through the set S ending at j;
// best[S][j] = min_{i in S\{j}} best[S\{j}][i] + d(i, j).
std::vector<int> tsp_optimal(const std::vector<float>& pts) {
  const int n = int(pts.size() / 2);
  AL_CHECK(n >= 2 && n <= 12, "exact TSP supports 2..12 cities, got " << n);
  const int full = 1 << n;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(size_t(full) * n, inf);
  std::vector<int> from(size_t(full) * n, -1);
  best[size_t(1) * n + 0] = 0;
  for (int S = 1; S < full; S += 2)
    for (int j = 0; j < n; ++j) {
      const double b = best[size_t(S) * n + j];
      if (!(S >> j & 1) || b == inf) continue;
      for (int k = 1; k < n; ++k) {
        if (S >> k & 1) continue;
        const int T = S | (1 << k);
        const double c = b + dist(pts, j, k);
        if (c < best[size_t(T) * n + k]) best[size_t(T) * n + k] = c, from[size_t(T) * n + k] = j;
      }
    }
  int last = 0;
  double bl = inf;
  for (int j = 1; j < n; ++j) {
    const double c = best[size_t(full - 1) * n + j] + dist(pts, j, 0);
    if (c < bl) bl = c, last = j;
  }
  std::vector<int> tour;
  for (int S = full - 1, j = last; j != -1;) {
    tour.push_back(j);
    const int pj = from[size_t(S) * n + j];
    S &= ~(1 << j);
    j = pj;
  }
  std::reverse(tour.begin(), tour.end());  // starts at 0
  if (n > 2 && tour[1] > tour.back()) std::reverse(tour.begin() + 1, tour.end());
  return tour;
}

}  // namespace attnlab
