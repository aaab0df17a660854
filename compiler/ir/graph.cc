#include "compiler/ir/graph.h"

#include <fmt/core.h>

#include <algorithm>

namespace tessera::ir {

const Tensor& Value::data() const {
  TSR_CHECK(data_ != nullptr, "value '{}' is not a constant", name_);
  return *data_;
}

void Node::SetInput(int i, Value* v) {
  Value* old = inputs_.at(i);
  auto it = std::find(old->users_.begin(), old->users_.end(), this);
  TSR_CHECK(it != old->users_.end(), "use list of '{}' is missing a user", old->name());
  old->users_.erase(it);
  inputs_[i] = v;
  v->users_.push_back(this);
}

void Node::AddInput(Value* v) {
  inputs_.push_back(v);
  v->users_.push_back(this);
}

void Node::RemoveInput(int i) {
  Value* old = inputs_.at(i);
  auto it = std::find(old->users_.begin(), old->users_.end(), this);
  TSR_CHECK(it != old->users_.end(), "use list of '{}' is missing a user", old->name());
  old->users_.erase(it);
  inputs_.erase(inputs_.begin() + i);
}

std::string Node::Describe() const {
  if (!name_.empty()) return fmt::format("node '{}' ({})", name_, op_);
  if (!outputs_.empty()) return fmt::format("node producing '%{}' ({})", outputs_[0]->name(), op_);
  return fmt::format("node ({})", op_);
}

std::string Node::Label() const {
  if (!name_.empty() || outputs_.empty()) return name_;
  return "%" + outputs_[0]->name();
}

Graph::~Graph() = default;

Value* Graph::NewValue(const std::string& name) {
  TSR_CHECK(!name.empty(), "empty value name");
  TSR_CHECK(by_name_.count(name) == 0, "duplicate value name '{}'", name);
  values_.push_back(std::make_unique<Value>());
  Value* v = values_.back().get();
  v->name_ = name;
  by_name_[name] = v;
  return v;
}

Value* Graph::AddInput(const std::string& name, TensorType type) {
  Value* v = NewValue(name);
  v->type_ = std::move(type);
  v->is_input_ = true;
  inputs_.push_back(v);
  return v;
}

Value* Graph::AddConstant(const std::string& name, std::shared_ptr<const Tensor> data,
                          std::optional<QuantParams> quant) {
  TSR_CHECK(data != nullptr, "null constant data for '{}'", name);
  Value* v = NewValue(name);
  v->type_ = TensorType(data->dtype(), data->shape(), std::move(quant));
  v->data_ = std::move(data);
  return v;
}

Value* Graph::AddConstant(const std::string& name, Tensor data, std::optional<QuantParams> quant) {
  return AddConstant(name, std::make_shared<const Tensor>(std::move(data)), std::move(quant));
}

Node* Graph::AddNode(const std::string& op, const std::vector<Value*>& inputs,
                     const std::vector<std::string>& output_names, Attrs attrs, const std::string& node_name,
                     Node* before) {
  auto node = std::make_unique<Node>();
  Node* n = node.get();
  n->op_ = op;
  n->name_ = node_name;
  n->attrs_ = std::move(attrs);
  for (Value* v : inputs) n->AddInput(v);
  for (size_t i = 0; i < output_names.size(); ++i) {
    Value* out = NewValue(output_names[i]);
    out->producer_ = n;
    out->index_ = static_cast<int>(i);
    n->outputs_.push_back(out);
  }
  if (before == nullptr) {
    nodes_.push_back(std::move(node));
  } else {
    nodes_.insert(nodes_.begin() + IndexOf(before), std::move(node));
  }
  return n;
}

int Graph::IndexOf(const Node* node) const {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].get() == node) return static_cast<int>(i);
  TSR_UNREACHABLE("node not in graph");
  return -1;
}

void Graph::MoveBefore(Node* node, Node* before) {
  int from = IndexOf(node);
  std::unique_ptr<Node> owned = std::move(nodes_[from]);
  nodes_.erase(nodes_.begin() + from);
  nodes_.insert(nodes_.begin() + IndexOf(before), std::move(owned));
}

void Graph::RemoveNode(Node* node) {
  for (Value* out : node->outputs_)
    TSR_CHECK(out->users_.empty() && !IsOutput(out), "removing {} whose output '{}' is still used", node->Describe(),
              out->name());
  while (!node->inputs_.empty()) node->RemoveInput(node->num_inputs() - 1);
  for (Value* out : node->outputs_) {
    out->producer_ = nullptr;
    RemoveValue(out);
  }
  nodes_.erase(nodes_.begin() + IndexOf(node));
}

void Graph::RemoveValue(Value* v) {
  TSR_CHECK(v->users_.empty() && !IsOutput(v) && v->producer_ == nullptr,
            "removing value '{}' that is still used or produced", v->name());
  inputs_.erase(std::remove(inputs_.begin(), inputs_.end(), v), inputs_.end());
  by_name_.erase(v->name_);
  auto it = std::find_if(values_.begin(), values_.end(), [v](const auto& p) { return p.get() == v; });
  TSR_CHECK(it != values_.end(), "value '{}' not in graph", v->name());
  values_.erase(it);
}

void Graph::ReplaceAllUsesWith(Value* from, Value* to) {
  TSR_CHECK(from != to, "replacing '{}' with itself", from->name());
  std::vector<Node*> users = from->users_;
  for (Node* user : users)
    for (int i = 0; i < user->num_inputs(); ++i)
      if (user->inputs_[i] == from) user->SetInput(i, to);
  for (Value*& out : outputs_)
    if (out == from) out = to;
}

void Graph::Rename(Value* v, const std::string& name) {
  if (v->name_ == name) return;
  TSR_CHECK(!name.empty() && by_name_.count(name) == 0, "cannot rename '{}' to taken name '{}'", v->name_, name);
  by_name_.erase(v->name_);
  v->name_ = name;
  by_name_[name] = v;
}

bool Graph::IsOutput(const Value* v) const { return std::find(outputs_.begin(), outputs_.end(), v) != outputs_.end(); }

int Graph::NumUses(const Value* v) const {
  return static_cast<int>(v->users_.size() + std::count(outputs_.begin(), outputs_.end(), v));
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (const auto& n : nodes_) out.push_back(n.get());
  return out;
}

std::vector<Value*> Graph::constants() const {
  std::vector<Value*> out;
  for (const auto& v : values_)
    if (v->is_constant()) out.push_back(v.get());
  return out;
}

Value* Graph::FindValue(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::string Graph::UniqueName(const std::string& base) {
  if (!by_name_.count(base)) return base;
  int& counter = name_counters_[base];
  std::string candidate;
  do {
    candidate = fmt::format("{}_{}", base, ++counter);
  } while (by_name_.count(candidate));
  return candidate;
}

std::unique_ptr<Graph> Graph::Clone() const {
  auto g = std::make_unique<Graph>(name_);
  std::unordered_map<const Value*, Value*> map;
  for (const Value* in : inputs_) map[in] = g->AddInput(in->name(), in->type());
  for (const auto& v : values_)
    if (v->is_constant()) {
      Value* c = g->AddConstant(v->name(), v->data_, v->type().quant);
      c->type_ = v->type_;
      map[v.get()] = c;
    }
  for (const auto& n : nodes_) {
    std::vector<Value*> ins;
    for (Value* in : n->inputs_) ins.push_back(map.at(in));
    std::vector<std::string> names;
    for (Value* out : n->outputs_) names.push_back(out->name());
    Node* copy = g->AddNode(n->op_, ins, names, n->attrs_, n->name_);
    for (int i = 0; i < n->num_outputs(); ++i) {
      copy->outputs_[i]->type_ = n->outputs_[i]->type_;
      map[n->outputs_[i]] = copy->outputs_[i];
    }
  }
  std::vector<Value*> outs;
  for (Value* o : outputs_) outs.push_back(map.at(o));
  g->outputs_ = outs;
  g->name_counters_ = name_counters_;
  return g;
}

}  // namespace tessera::ir
