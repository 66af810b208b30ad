//go:build cgo

#include "flatten.h"

#define HK_MAX_DEPTH 100000

int64_t hk_flatten(TSParser *parser, const char *src, uint32_t len, hk_node *out, uint32_t cap) {
	TSTree *tree = ts_parser_parse_string(parser, NULL, src, len);
	if (tree == NULL) {
		ts_parser_reset(parser);
		return -1;
	}
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(tree));
	int64_t n = 0;
	int32_t parent = -1;   // index of the current node's parent
	int32_t prev = -1;     // index of the previous sibling at this level, -1 if none
	// The cursor walk keeps, per level, the index of the last node written; the stack of
	// parents is recovered through out[].parent, which is why records beyond cap are only
	// counted once the buffer is full.
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&cur);
		int32_t idx = (int32_t)n;
		if (n < cap) {
			hk_node *r = &out[n];
			TSPoint sp = ts_node_start_point(node), ep = ts_node_end_point(node);
			r->kind = ts_node_symbol(node);
			r->flags = (ts_node_is_named(node) ? 1 : 0) | (ts_node_is_extra(node) ? 2 : 0) |
			           (ts_node_is_missing(node) ? 4 : 0) | (r->kind == 0xFFFF ? 8 : 0);
			r->pad = 0;
			r->start = ts_node_start_byte(node);
			r->end = ts_node_end_byte(node);
			r->srow = sp.row; r->scol = sp.column; r->erow = ep.row; r->ecol = ep.column;
			r->parent = parent;
			r->first_child = -1;
			r->next_sibling = -1;
			r->nchild = 0;
			if (prev >= 0 && prev < (int32_t)cap) out[prev].next_sibling = idx;
			if (parent >= 0 && parent < (int32_t)cap) {
				if (out[parent].first_child < 0) out[parent].first_child = idx;
				out[parent].nchild++;
			}
		}
		n++;
		if (n >= cap) {
			// Too small: count the rest without writing.
			break;
		}
		if (ts_tree_cursor_goto_first_child(&cur)) {
			parent = idx;
			prev = -1;
			continue;
		}
		// Leaf: move to the next sibling, or climb.
		int32_t at = idx;
		for (;;) {
			if (ts_tree_cursor_goto_next_sibling(&cur)) {
				prev = at;
				break;
			}
			if (!ts_tree_cursor_goto_parent(&cur)) {
				goto done;
			}
			at = parent;
			parent = out[at].parent;
		}
	}
	// Count the remaining nodes when the buffer was too small.
	{
		int climbing = 0;
		for (;;) {
			if (!climbing && ts_tree_cursor_goto_first_child(&cur)) {
				n++;
				continue;
			}
			if (ts_tree_cursor_goto_next_sibling(&cur)) {
				n++;
				climbing = 0;
				continue;
			}
			if (!ts_tree_cursor_goto_parent(&cur)) break;
			climbing = 1;
		}
	}
done:
	ts_tree_cursor_delete(&cur);
	ts_tree_delete(tree);
	return n;
}
