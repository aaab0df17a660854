// The graph IR: a single function of typed SSA values. Values are graph
// inputs, constants (immutable shared data) or node outputs. Nodes are kept
// in a topological order that every mutation preserves: a node is inserted
// after the producers of its inputs, and a use is only redirected to a value
// that is defined before the user (the verifier checks it).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/attr.h"
#include "compiler/ir/type.h"

namespace tessera::ir {

class Graph;
class Node;

class Value {
 public:
  const std::string& name() const { return name_; }
  const TensorType& type() const { return type_; }
  void set_type(TensorType t) { type_ = std::move(t); }
  Node* producer() const { return producer_; }
  int producer_index() const { return index_; }
  bool is_input() const { return is_input_; }
  bool is_constant() const { return data_ != nullptr; }
  const Tensor& data() const;
  const std::shared_ptr<const Tensor>& data_ptr() const { return data_; }
  // One entry per use: a node that reads this value twice appears twice.
  const std::vector<Node*>& users() const { return users_; }

 private:
  friend class Graph;
  friend class Node;
  std::string name_;
  TensorType type_;
  Node* producer_ = nullptr;
  int index_ = 0;
  bool is_input_ = false;
  std::shared_ptr<const Tensor> data_;
  std::vector<Node*> users_;
};

class Node {
 public:
  const std::string& op() const { return op_; }
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  Value* input(int i) const { return inputs_.at(i); }
  const std::vector<Value*>& inputs() const { return inputs_; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  Value* output(int i = 0) const { return outputs_.at(i); }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Attrs& attrs() { return attrs_; }
  const Attrs& attrs() const { return attrs_; }

  void SetInput(int i, Value* v);
  void AddInput(Value* v);
  void RemoveInput(int i);
  // "node 'conv1' (conv)" or, unnamed, "node producing '%x' (conv)".
  std::string Describe() const;
  // A short label for reports: its name, or "%x" (its first result) when unnamed.
  std::string Label() const;

 private:
  friend class Graph;
  std::string op_, name_;
  std::vector<Value*> inputs_, outputs_;
  Attrs attrs_;
};

class Graph {
 public:
  explicit Graph(std::string name = "main") : name_(std::move(name)) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  // Names must be unique in the graph (TSR_CHECK); use UniqueName() for new ones.
  Value* AddInput(const std::string& name, TensorType type);
  Value* AddConstant(const std::string& name, std::shared_ptr<const Tensor> data,
                     std::optional<QuantParams> quant = std::nullopt);
  Value* AddConstant(const std::string& name, Tensor data, std::optional<QuantParams> quant = std::nullopt);
  // Creates a node before `before` (nullptr: at the end). Output types are
  // left empty for shape inference or the caller to set.
  Node* AddNode(const std::string& op, const std::vector<Value*>& inputs, const std::vector<std::string>& output_names,
                Attrs attrs = {}, const std::string& node_name = "", Node* before = nullptr);
  // Removes a node whose outputs have no users and are not graph outputs.
  void RemoveNode(Node* node);
  // Removes an unused constant or value.
  void RemoveValue(Value* v);
  // Redirects every use of `from` (node inputs and graph outputs) to `to`.
  void ReplaceAllUsesWith(Value* from, Value* to);
  // Renames a value; the new name must be free.
  void Rename(Value* v, const std::string& name);

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  void SetOutputs(std::vector<Value*> outputs) { outputs_ = std::move(outputs); }
  bool IsOutput(const Value* v) const;
  // Node uses plus graph-output uses.
  int NumUses(const Value* v) const;

  // Live nodes in order (a snapshot: safe to mutate the graph while iterating).
  std::vector<Node*> nodes() const;
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  // Constants in creation order.
  std::vector<Value*> constants() const;
  Value* FindValue(const std::string& name) const;
  // `base` if free, else base_1, base_2, ...
  std::string UniqueName(const std::string& base);
  // Moves `node` to just before `before`.
  void MoveBefore(Node* node, Node* before);
  // Position of a node in the order (for dominance checks).
  int IndexOf(const Node* node) const;

  // Deep copy of the structure; constant data is shared (it is immutable).
  std::unique_ptr<Graph> Clone() const;

 private:
  Value* NewValue(const std::string& name);

  std::string name_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Value>> values_;
  std::unordered_map<std::string, Value*> by_name_;
  std::unordered_map<std::string, int> name_counters_;
  std::vector<Value*> inputs_, outputs_;
};

}  // namespace tessera::ir
