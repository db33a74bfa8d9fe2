// What a call on a model session costs, estimated from the model's config and the call's
// arguments before any of it runs, and the one bound every such call must stay under (sessions
// refuse a call above it with an attnlab::Error, so the page, the npm package, the widgets and
// node all get the same refusal).
//
// Each registry row (models/registry.cpp) gives its kind's multiply-adds per pass (KindWork:
// a teacher-forced forward pass, the encoder pass a decoding starts with, one decoding step) and
// a calibration factor that turns them into equivalent GEMM work: the recurrent kinds run many
// small matrix products, far below a large GEMM's rate, and are charged for it. Costs are in
// those units: GEMM-equivalent multiply-adds.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace attnlab {

// Multiply-adds of a kind's passes, per its config (fields absent: the typed config's defaults).
// B, R: rows; S: source length (point sets: n); T: target length (with </s>); t: the 0-based
// decoding step. A step costs at most a quadratic in t (the decoder-only LM re-reads its
// prefix; the others are linear in it).
struct KindWork {
  double (*forward)(const nlohmann::json& m, double B, double S, double T);
  double (*encode)(const nlohmann::json& m, double R, double S);
  double (*step)(const nlohmann::json& m, double R, double S, double t);
  double factor;  // seconds per multiply-add of this kind over those of a large GEMM
};

// The row of the kind a config names (throws attnlab::Error for an unknown kind).
const KindWork& kind_work(const nlohmann::json& model);

// The bound on one call, in GEMM-equivalent multiply-adds (see cost.cpp for how it was chosen).
extern const double kMaxCallCost;

// GEMM-equivalent multiply-adds of one call on a model with config `model`.
// One optimizer step at batch B (forward, backward and Adam's update of every parameter).
double train_step_cost(const nlohmann::json& model, double B, double S, double T);
// Decoding R sources of length S for up to L steps: greedy (beam 1) as one batch, else one
// beam search of `beam` rows per source.
double decode_cost(const nlohmann::json& model, double R, double S, int beam, int L);
// Evaluation on a token task: a teacher-forced pass and a greedy decoding of `samples` rows.
double evaluate_cost(const nlohmann::json& model, double samples, double S, double T);
// Evaluation on a point task: both of those for `samples` sets of every n in [n_min, n_max].
double evaluate_points_cost(const nlohmann::json& model, double samples, int n_min, int n_max);
// One teacher-forced pass over B rows (inspection).
double forward_cost(const nlohmann::json& model, double B, double S, double T);

// Throws attnlab::Error when cost > kMaxCallCost: "<call>: this call would take about <cost>
// units of work (...), <times> times the <bound> one call may do; <advice>". Front ends may read
// the numbers back from the message (the playground: web/demos/playground/pointer.js, tooCostly).
void check_cost(double cost, const std::string& call, const std::string& advice);

// "2.4e10": two significant digits, for messages.
std::string work_units(double cost);

}  // namespace attnlab
