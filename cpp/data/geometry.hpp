// Exact labels for the pointer tasks: planar convex hull (Andrew's monotone chain), polygon
// area, tour length, and the optimal travelling-salesman tour by the Held-Karp dynamic program.
// Points are [n,2] row-major (x, y).
#pragma once
#include <vector>

namespace attnlab {

// Hull vertices counter-clockwise, starting at the lowest index among them (Vinyals et al.).
std::vector<int> convex_hull(const std::vector<float>& pts);
// Area of the polygon visiting pts in `order` (absolute shoelace); 0 if it is not a simple
// polygon (fewer than 3 distinct vertices, repeats, or crossing edges).
double polygon_area(const std::vector<float>& pts, const std::vector<int>& order);
bool is_simple_polygon(const std::vector<float>& pts, const std::vector<int>& order);
// Length of the closed tour visiting pts in `order`.
double tour_length(const std::vector<float>& pts, const std::vector<int>& order);
// An optimal closed tour for n <= 12 points, starting at 0; of its two directions, the one
// whose second city has the smaller index.
std::vector<int> tsp_optimal(const std::vector<float>& pts);

}  // namespace attnlab
