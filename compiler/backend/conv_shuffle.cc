#include "compiler/backend/conv_shuffle.h"

#include "compiler/backend/align_concat.h"
#include "compiler/passes/rewrite.h"

namespace tessera::backend {
namespace {

using Shape = std::vector<int64_t>;

const Shape& ShapeOf(const ir::Node* n) { return n->output()->type().shape; }

// The chain after a stride-phase qconv: reshape, transpose with `perm`,
// reshape to [N, M, LH*sh, LW*sw], and a spatial crop if any; each result
// read only by the next node.
struct Chain {
  ir::Node *split = nullptr, *shuffle = nullptr, *merge = nullptr, *crop = nullptr;
};

std::optional<Chain> ChainOf(const ir::Graph& g, const ir::Node& conv, const Shape& perm) {
  // Not grouped: reordering a grouped conv's output channels would move them across its groups.
  if (conv.op() != "qconv" || conv.attrs().Int("group", 1) != 1 || conv.output()->type().rank() != 4 ||
      g.IsOutput(conv.output()))
    return std::nullopt;
  Chain c;
  c.split = passes::OnlyUser(g, conv.output());
  if (!c.split || c.split->op() != "reshape" || g.IsOutput(c.split->output())) return std::nullopt;
  c.shuffle = passes::OnlyUser(g, c.split->output());
  if (!c.shuffle || c.shuffle->op() != "transpose" || c.shuffle->attrs().Ints("perm") != perm ||
      g.IsOutput(c.shuffle->output()))
    return std::nullopt;
  c.merge = passes::OnlyUser(g, c.shuffle->output());
  if (!c.merge || c.merge->op() != "reshape" || ShapeOf(c.merge).size() != 4) return std::nullopt;
  ir::Node* s = g.IsOutput(c.merge->output()) ? nullptr : passes::OnlyUser(g, c.merge->output());
  if (s && s->op() == "slice" && s->num_inputs() == 1) {
    const Shape starts = s->attrs().Ints("starts"), steps = s->attrs().Ints("steps");
    const Shape &in = ShapeOf(c.merge), &out = ShapeOf(s);
    if (starts.size() == 4 && steps == Shape{1, 1, 1, 1} && starts[0] == 0 && starts[1] == 0 && out[0] == in[0] &&
        out[1] == in[1])
      c.crop = s;
  }
  return c;
}

// The shuffle's geometry from the conv's result [N, C, LH, LW] and the
// shuffled [N, M, LH*sh, LW*sw]: false unless it is one.
bool Phases(const ir::Node& conv, const Chain& c, int64_t* m, int64_t* sh, int64_t* sw) {
  const Shape &t = ShapeOf(&conv), &u = ShapeOf(c.merge);
  if (u[0] != t[0] || u[2] % t[2] != 0 || u[3] % t[3] != 0) return false;
  *m = u[1], *sh = u[2] / t[2], *sw = u[3] / t[3];
  return *m * *sh * *sw == t[1];
}

}  // namespace

int OrderShufflePhases(ir::Graph& g, int64_t block) {
  int count = 0;
  for (ir::Node* conv : g.nodes()) {
    const std::optional<Chain> c = ChainOf(g, *conv, {0, 1, 4, 2, 5, 3});
    int64_t m = 0, sh = 0, sw = 0;
    if (!c || !Phases(*conv, *c, &m, &sh, &sw) || m % block != 0 || !conv->input(1)->is_constant() ||
        (conv->num_inputs() > 2 && !conv->input(2)->is_constant()))
      continue;
    const Shape& t = ShapeOf(conv);
    if (ShapeOf(c->split) != Shape{t[0], m, sh, sw, t[2], t[3]}) continue;
    // Channel (k, p) of [M][P] moves to block k / BLK, phase p, lane k % BLK.
    const int64_t phases = sh * sw;
    std::vector<int64_t> map(static_cast<size_t>(m * phases));
    for (int64_t k = 0; k < m; ++k)
      for (int64_t p = 0; p < phases; ++p) map[k * phases + p] = (k / block * phases + p) * block + k % block;
    SpreadOutputs(g, conv, map, m * phases);
    const Shape split = {t[0] * (m / block), sh, sw, block, t[2], t[3]};
    c->split->attrs().Set("shape", split);
    ir::TensorType st = c->split->output()->type();
    st.shape = split;
    c->split->output()->set_type(st);
    c->shuffle->attrs().Set("perm", Shape{0, 3, 4, 1, 5, 2});
    ir::TensorType tt = c->shuffle->output()->type();
    tt.shape = {split[0], block, t[2], sh, t[3], sw};
    c->shuffle->output()->set_type(tt);
    ++count;
  }
  return count;
}

std::optional<ConvShuffle> DeviceShuffleOf(const ir::Graph& g, const ir::Node& conv, int64_t block) {
  const std::optional<Chain> c = ChainOf(g, conv, {0, 3, 4, 1, 5, 2});
  int64_t m = 0;
  ConvShuffle cs;
  PixelShuffle& s = cs.geo;
  if (!c || !Phases(conv, *c, &m, &s.sh, &s.sw) || m % block != 0) return std::nullopt;
  const Shape& t = ShapeOf(&conv);
  if (ShapeOf(c->split) != Shape{t[0] * (m / block), s.sh, s.sw, block, t[2], t[3]}) return std::nullopt;
  cs.nodes = {c->split, c->shuffle, c->merge};
  const Shape& out = ShapeOf(c->crop ? c->crop : c->merge);
  s.oh = out[2], s.ow = out[3];
  if (c->crop) {
    const Shape starts = c->crop->attrs().Ints("starts");
    s.crop_h = starts[2], s.crop_w = starts[3];
    cs.nodes.push_back(c->crop);
  }
  // Every phase row and column holds a pixel of the result, so every tile stores some.
  if (s.crop_h < 0 || s.crop_w < 0 || s.crop_h >= s.sh || s.crop_w >= s.sw || (t[2] - 1) * s.sh >= s.crop_h + s.oh ||
      (t[3] - 1) * s.sw >= s.crop_w + s.ow)
    return std::nullopt;
  return cs;
}

}  // namespace tessera::backend
