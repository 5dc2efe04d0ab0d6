#pragma once
// The red-black tree java.util.HashMap (JDK 17) makes of a crowded bucket,
// as far as it decides the bucket's iteration order. A tree bucket still
// iterates as a linked list, but the tree moves entries in that list: the
// tree's root is always first, a new key goes right after its parent in
// the tree, and a tree rebuilt from a list puts its new root first. So the
// order depends on the tree's exact shape, and this model keeps the same
// shape by making the same choices Java makes:
//   - keys order by hash (as a signed int), then by the key's natural order
//     (Integer, Uuid.compareTo, String.compareTo); equal keys never meet;
//   - insertion and deletion rebalance as in Cormen, Leiserson and Rivest's
//     red-black trees: a node with two children is swapped with its
//     successor (colours exchanged) before it is unlinked, a node without
//     children stands in for the missing child while the tree is repaired;
//     a rotation that makes a new root colours it black;
//   - a removal from a tree whose root lacks a right child, a left child or
//     a left grandchild on the left turns the bucket back into a plain list
//     (without rebalancing), as a split during a resize does for a half of
//     six keys or fewer.
// Operates on its map's node pool (java_hash_map.h); pure.

#include <cstdint>
#include <utility>
#include <vector>

namespace hw::broker::group::consumer {

inline constexpr int32_t kNoNode = -1;

// Node: uint32_t hash; K key; int32_t next, prev, parent, left, right; bool red.
// Keys: static int compare(const K&, const K&), Java's natural order.
template <typename Node, typename Keys>
class java_tree_bin {
 public:
  // The bucket whose list starts at `head`.
  java_tree_bin(std::vector<Node>& pool, int32_t& head) : pool_(pool), head_(head) {}

  // Makes a tree of the bucket's list, keys taken in list order.
  void build() {
    // A plain list has no back links; the tree's list needs them.
    for (int32_t x = head_, prev = kNoNode; x != kNoNode; prev = x, x = at(x).next) at(x).prev = prev;
    int32_t root = kNoNode;
    for (int32_t x = head_; x != kNoNode; x = at(x).next) {
      at(x).left = at(x).right = kNoNode;
      if (root == kNoNode) {
        at(x).parent = kNoNode;
        at(x).red = false;
        root = x;
        continue;
      }
      attach_below(root, x);
      root = repair_after_insert(root, x);
    }
    move_to_front(root);
  }

  // Adds node x (a key not in the tree): into the tree, and into the list
  // right after its tree parent.
  void add(int32_t x) {
    int32_t root = root_of(head_);
    int32_t parent = attach_below(root, x);
    Node& n = at(x);
    n.next = at(parent).next;
    n.prev = parent;
    at(parent).next = x;
    if (n.next != kNoNode) at(n.next).prev = x;
    move_to_front(repair_after_insert(root, x));
  }

  // Removes node x. Returns false when the bucket became a plain list (or
  // empty) instead.
  bool remove(int32_t x) {
    int32_t root = root_of(head_);
    unlink_from_list(x);
    if (head_ == kNoNode) return false;
    if (too_small(root)) {
      flatten(head_);
      return false;
    }
    move_to_front(unlink_from_tree(root, x));
    return true;
  }

  // Splits the bucket for a table twice as large: keys with `bit` set move
  // to `high`, the others stay; each half keeps its order and becomes a
  // plain list when it has six keys or fewer. A half that got every key
  // keeps its tree; a half that got some is rebuilt. Returns whether each
  // half is a tree.
  std::pair<bool, bool> split(int32_t& high, uint32_t bit) {
    int32_t low_tail = kNoNode, high_tail = kNoNode, low_head = kNoNode;
    high = kNoNode;
    int low_count = 0, high_count = 0;
    for (int32_t e = head_, next; e != kNoNode; e = next) {
      next = at(e).next;
      at(e).next = kNoNode;
      bool up = (at(e).hash & bit) != 0;
      int32_t& first = up ? high : low_head;
      int32_t& tail = up ? high_tail : low_tail;
      at(e).prev = tail;
      (tail == kNoNode ? first : at(tail).next) = e;
      tail = e;
      ++(up ? high_count : low_count);
    }
    head_ = low_head;
    bool low_tree = settle_half(head_, low_count, high != kNoNode);
    bool high_tree = settle_half(high, high_count, head_ != kNoNode);
    return {low_tree, high_tree};
  }

 private:
  static constexpr int kFlattenAtMost = 6;

  Node& at(int32_t i) { return pool_[static_cast<size_t>(i)]; }

  // Java's tree order: hash as a signed int, then the key.
  int compare(int32_t a, int32_t b) {
    auto ha = static_cast<int32_t>(at(a).hash), hb = static_cast<int32_t>(at(b).hash);
    if (ha != hb) return ha < hb ? -1 : 1;
    return Keys::compare(at(a).key, at(b).key);
  }

  int32_t root_of(int32_t n) {
    while (at(n).parent != kNoNode) n = at(n).parent;
    return n;
  }

  // Plain binary-tree insertion of x under root; returns x's parent.
  int32_t attach_below(int32_t root, int32_t x) {
    for (int32_t p = root;;) {
      bool left = compare(x, p) <= 0;
      int32_t child = left ? at(p).left : at(p).right;
      if (child == kNoNode) {
        at(x).parent = p;
        at(x).left = at(x).right = kNoNode;
        (left ? at(p).left : at(p).right) = x;
        return p;
      }
      p = child;
    }
  }

  // Makes the tree's root the first of the list.
  void move_to_front(int32_t root) {
    if (root == kNoNode || root == head_) return;
    Node& r = at(root);
    if (r.next != kNoNode) at(r.next).prev = r.prev;
    if (r.prev != kNoNode) at(r.prev).next = r.next;
    if (head_ != kNoNode) at(head_).prev = root;
    r.next = head_;
    r.prev = kNoNode;
    head_ = root;
  }

  void unlink_from_list(int32_t x) {
    Node& n = at(x);
    (n.prev == kNoNode ? head_ : at(n.prev).next) = n.next;
    if (n.next != kNoNode) at(n.next).prev = n.prev;
  }

  bool too_small(int32_t root) {
    const Node& r = at(root);
    return r.right == kNoNode || r.left == kNoNode || at(r.left).left == kNoNode;
  }

  // Clears the tree links of the list from `first`: a plain bucket.
  void flatten(int32_t first) {
    for (int32_t e = first; e != kNoNode; e = at(e).next) {
      at(e).parent = at(e).left = at(e).right = at(e).prev = kNoNode;
      at(e).red = false;
    }
  }

  bool settle_half(int32_t& first, int count, bool other_half_has_keys) {
    if (first == kNoNode) return false;
    if (count <= kFlattenAtMost) {
      flatten(first);
      return false;
    }
    if (other_half_has_keys) java_tree_bin(pool_, first).build();
    return true;
  }

  void set_child(int32_t parent, int32_t old_child, int32_t new_child, int32_t& root) {
    if (parent == kNoNode) {
      root = new_child;
    } else if (at(parent).left == old_child) {
      at(parent).left = new_child;
    } else {
      at(parent).right = new_child;
    }
  }

  int32_t rotate_left(int32_t root, int32_t p) {
    int32_t r = p == kNoNode ? kNoNode : at(p).right;
    if (r == kNoNode) return root;
    at(p).right = at(r).left;
    if (at(r).left != kNoNode) at(at(r).left).parent = p;
    at(r).parent = at(p).parent;
    set_child(at(p).parent, p, r, root);
    if (at(r).parent == kNoNode) at(r).red = false;
    at(r).left = p;
    at(p).parent = r;
    return root;
  }

  int32_t rotate_right(int32_t root, int32_t p) {
    int32_t l = p == kNoNode ? kNoNode : at(p).left;
    if (l == kNoNode) return root;
    at(p).left = at(l).right;
    if (at(l).right != kNoNode) at(at(l).right).parent = p;
    at(l).parent = at(p).parent;
    set_child(at(p).parent, p, l, root);
    if (at(l).parent == kNoNode) at(l).red = false;
    at(l).right = p;
    at(p).parent = l;
    return root;
  }

  bool is_red(int32_t n) { return n != kNoNode && at(n).red; }

  // Restores the red-black rules after x was attached; returns the root.
  int32_t repair_after_insert(int32_t root, int32_t x) {
    at(x).red = true;
    for (;;) {
      int32_t p = at(x).parent;
      if (p == kNoNode) {
        at(x).red = false;
        return x;
      }
      int32_t g = at(p).parent;
      if (!at(p).red || g == kNoNode) return root;
      bool parent_is_left = at(g).left == p;
      int32_t uncle = parent_is_left ? at(g).right : at(g).left;
      if (is_red(uncle)) {
        at(uncle).red = false;
        at(p).red = false;
        at(g).red = true;
        x = g;
        continue;
      }
      if (x == (parent_is_left ? at(p).right : at(p).left)) {
        x = p;
        root = parent_is_left ? rotate_left(root, x) : rotate_right(root, x);
        p = at(x).parent;
        g = p == kNoNode ? kNoNode : at(p).parent;
      }
      if (p != kNoNode) {
        at(p).red = false;
        if (g != kNoNode) {
          at(g).red = true;
          root = parent_is_left ? rotate_right(root, g) : rotate_left(root, g);
        }
      }
    }
  }

  // Takes x out of the tree (already out of the list); returns the root.
  int32_t unlink_from_tree(int32_t root, int32_t x) {
    if (at(x).left != kNoNode && at(x).right != kNoNode) root = swap_with_successor(root, x);
    // x now has one child at most.
    int32_t child = at(x).left != kNoNode ? at(x).left : at(x).right;
    int32_t replacement = child != kNoNode ? child : x;
    if (replacement != x) {
      int32_t parent = at(x).parent;
      at(replacement).parent = parent;
      set_child(parent, x, replacement, root);
      if (parent == kNoNode) at(replacement).red = false;
      at(x).left = at(x).right = at(x).parent = kNoNode;
    }
    int32_t result = at(x).red ? root : repair_after_delete(root, replacement);
    if (replacement == x && at(x).parent != kNoNode) {
      int32_t parent = at(x).parent;
      if (at(parent).left == x) {
        at(parent).left = kNoNode;
      } else if (at(parent).right == x) {
        at(parent).right = kNoNode;
      }
      at(x).parent = kNoNode;
    }
    return result;
  }

  // Exchanges x's place in the tree (and its colour) with its in-order
  // successor s, the leftmost node of x's right subtree.
  int32_t swap_with_successor(int32_t root, int32_t x) {
    int32_t xl = at(x).left, xr = at(x).right, xp = at(x).parent;
    int32_t s = xr;
    while (at(s).left != kNoNode) s = at(s).left;
    std::swap(at(s).red, at(x).red);
    int32_t sr = at(s).right;
    if (s == xr) {
      at(x).parent = s;
      at(s).right = x;
    } else {
      int32_t sp = at(s).parent;
      at(x).parent = sp;
      (at(sp).left == s ? at(sp).left : at(sp).right) = x;
      at(s).right = xr;
      at(xr).parent = s;
    }
    at(x).left = kNoNode;
    at(x).right = sr;
    if (sr != kNoNode) at(sr).parent = x;
    at(s).left = xl;
    at(xl).parent = s;
    at(s).parent = xp;
    set_child(xp, x, s, root);
    return root;
  }

  // Restores the red-black rules after a black node left from above x;
  // returns the root.
  int32_t repair_after_delete(int32_t root, int32_t x) {
    for (;;) {
      if (x == kNoNode || x == root) return root;
      int32_t p = at(x).parent;
      if (p == kNoNode) {
        at(x).red = false;
        return x;
      }
      if (at(x).red) {
        at(x).red = false;
        return root;
      }
      bool x_is_left = at(p).left == x;
      auto near_child = [&](int32_t n) { return x_is_left ? at(n).left : at(n).right; };
      auto far_child = [&](int32_t n) { return x_is_left ? at(n).right : at(n).left; };
      auto toward_x = [&](int32_t r, int32_t n) { return x_is_left ? rotate_left(r, n) : rotate_right(r, n); };
      auto away_from_x = [&](int32_t r, int32_t n) { return x_is_left ? rotate_right(r, n) : rotate_left(r, n); };
      auto sibling_of = [&](int32_t parent) {
        return parent == kNoNode ? kNoNode : (x_is_left ? at(parent).right : at(parent).left);
      };

      int32_t w = x_is_left ? at(p).right : at(p).left;
      if (is_red(w)) {
        at(w).red = false;
        at(p).red = true;
        root = toward_x(root, p);
        p = at(x).parent;
        w = sibling_of(p);
      }
      if (w == kNoNode) {
        x = p;
        continue;
      }
      if (!is_red(far_child(w)) && !is_red(near_child(w))) {
        at(w).red = true;
        x = p;
        continue;
      }
      if (!is_red(far_child(w))) {
        if (near_child(w) != kNoNode) at(near_child(w)).red = false;
        at(w).red = true;
        root = away_from_x(root, w);
        p = at(x).parent;
        w = sibling_of(p);
      }
      if (w != kNoNode) {
        at(w).red = p == kNoNode ? false : at(p).red;
        if (far_child(w) != kNoNode) at(far_child(w)).red = false;
      }
      if (p != kNoNode) {
        at(p).red = false;
        root = toward_x(root, p);
      }
      x = root;
    }
  }

  std::vector<Node>& pool_;
  int32_t& head_;
};

}  // namespace hw::broker::group::consumer
