//go:build cgo

#include "flatten.h"
#include <stdlib.h>

static inline int hk_in(const uint8_t *kinds, uint32_t nkinds, TSSymbol sym) {
	return sym < nkinds && ((kinds[sym >> 3] >> (sym & 7)) & 1);
}

// hk_holds reports whether [start, end) holds one of the nocc sorted occurrences.
static int hk_holds(const uint32_t *occ, uint32_t nocc, uint32_t litlen, uint32_t start, uint32_t end) {
	uint32_t lo = 0, hi = nocc;
	while (lo < hi) { // the first occurrence at or after start
		uint32_t mid = lo + (hi - lo) / 2;
		if (occ[mid] < start) lo = mid + 1; else hi = mid;
	}
	return lo < nocc && (uint64_t)occ[lo] + litlen <= end;
}

void hk_flatten_tree(TSTree *tree, HK_FILTER, hk_node *out, int32_t *cands, uint32_t cap,
                     hk_result *res) {
	int lit = kinds != NULL && occ != NULL;
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(tree));
	int64_t n = 0;       // records wanted so far; those below cap are written
	int64_t nc = 0;      // candidates found so far
	int64_t depth = 0;   // the cursor's depth
	// in is the depth of the subtree root being written, -1 between subtrees. Without a
	// kind set the whole tree is one subtree.
	int64_t in = kinds == NULL ? 0 : -1;
	int32_t parent = -1; // index of the current node's parent within its subtree
	int32_t prev = -1;   // index of the previous sibling at this level, -1 if none
	// Parents are recovered through out[].parent when climbing. Past cap nothing is
	// written, so from then on only the counts matter.
	for (;;) {
		int32_t idx = -1;
		TSNode node = ts_tree_cursor_current_node(&cur);
		// Between subtrees, a node whose range lacks the literal cannot be nor hold a match.
		int skip = in < 0 && lit &&
		           !hk_holds(occ, nocc, litlen, ts_node_start_byte(node), ts_node_end_byte(node));
		int cand = 0;
		TSSymbol sym = 0;
		if (!skip) {
			sym = ts_node_symbol(node);
			cand = kinds != NULL && hk_in(kinds, nkinds, sym);
		}
		if (cand && in < 0) {
			in = depth;
			parent = -1;
			prev = -1;
		}
		if (in >= 0) {
			idx = (int32_t)n;
			if (n < cap) {
				hk_node *r = &out[n];
				TSPoint sp = ts_node_start_point(node), ep = ts_node_end_point(node);
				r->kind = sym;
				r->flags = (ts_node_is_named(node) ? 1 : 0) | (ts_node_is_extra(node) ? 2 : 0) |
				           (ts_node_is_missing(node) ? 4 : 0) | (sym == 0xFFFF ? 8 : 0);
				r->pad = 0;
				r->start = ts_node_start_byte(node);
				r->end = ts_node_end_byte(node);
				r->srow = sp.row; r->scol = sp.column; r->erow = ep.row; r->ecol = ep.column;
				r->parent = parent;
				r->first_child = -1;
				r->next_sibling = -1;
				r->nchild = 0;
				if (prev >= 0) out[prev].next_sibling = idx;
				if (parent >= 0) {
					if (out[parent].first_child < 0) out[parent].first_child = idx;
					out[parent].nchild++;
				}
				if (cand) cands[nc] = idx;
			}
			if (cand) nc++;
			n++;
		}
		if (!skip && ts_tree_cursor_goto_first_child(&cur)) {
			depth++;
			parent = idx;
			prev = -1;
			continue;
		}
		// A leaf or a skipped subtree: move to the next sibling, or climb until there is one.
		int32_t at = idx;
		for (;;) {
			if (in == depth) {
				// Leaving the subtree root: back between subtrees.
				in = -1;
			}
			if (ts_tree_cursor_goto_next_sibling(&cur)) {
				prev = in >= 0 ? at : -1;
				break;
			}
			if (!ts_tree_cursor_goto_parent(&cur)) goto done;
			depth--;
			at = parent;
			parent = (at >= 0 && at < (int32_t)cap && (int64_t)at < n) ? out[at].parent : -1;
		}
	}
done:
	ts_tree_cursor_delete(&cur);
	res->nodes = n;
	res->cands = nc;
	res->tree = tree;
	if (n <= (int64_t)cap) {
		ts_tree_delete(tree);
		res->tree = NULL;
	}
}

int hk_parse_flatten(TSParser *parser, const char *src, uint32_t len, HK_FILTER,
                     hk_node *out, int32_t *cands, uint32_t cap, hk_result *res) {
	TSTree *tree = ts_parser_parse_string(parser, NULL, src, len);
	if (tree == NULL) {
		ts_parser_reset(parser);
		res->nodes = 0;
		res->cands = 0;
		res->tree = NULL;
		return -1;
	}
	hk_flatten_tree(tree, kinds, nkinds, occ, nocc, litlen, out, cands, cap, res);
	return 0;
}

void hk_tree_delete(TSTree *tree) { ts_tree_delete(tree); }

int hk_parse_only(TSParser *parser, const char *src, uint32_t len) {
	TSTree *tree = ts_parser_parse_string(parser, NULL, src, len);
	if (tree == NULL) {
		ts_parser_reset(parser);
		return -1;
	}
	ts_tree_delete(tree);
	return 0;
}

size_t *hk_flag_new(void) { return calloc(1, sizeof(size_t)); }

void hk_flag_set(size_t *flag) {
	if (flag != NULL) __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
}

void hk_flag_free(size_t *flag) { free(flag); }

void hk_use_libc_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }
