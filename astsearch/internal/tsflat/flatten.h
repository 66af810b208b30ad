// The tree-sitter runtime's own header, the one github.com/tree-sitter/go-tree-sitter
// compiles its runtime with (copied under include/, see include/README.md; a test checks
// it is byte for byte the header of the go-tree-sitter version go.mod requires).
#include <stddef.h>
#include "include/tree_sitter/api.h"

// hk_use_libc_allocator points the runtime's allocator back at the C library's. The Go
// binding routes every allocation through a Go callback by default (a C→Go→C round trip
// per malloc and free: parsing GOROOT/src/net took 1.9-2.4 s of CPU instead of 1.1-1.4 s,
// three runs each); the memory is the C library's either way, so blocks allocated before
// and freed after the switch match.
void hk_use_libc_allocator(void);

// hk_node mirrors match.Node.
typedef struct hk_node {
	uint16_t kind;
	uint8_t flags;
	uint8_t pad;
	uint32_t start, end;
	uint32_t srow, scol, erow, ecol;
	int32_t parent, first_child, next_sibling;
	uint32_t nchild;
} hk_node;

// hk_result is what a flatten reports. nodes is the number of records the walk wants
// (more than cap: the buffers were too small and nothing past cap was written); cands is the
// number of candidate indices; tree is the parsed tree while it is kept alive for a retry
// with larger buffers (NULL once deleted).
typedef struct hk_result {
	int64_t nodes;
	int64_t cands;
	TSTree *tree;
} hk_result;

// The filter of a flatten. With kinds NULL the whole tree is written. Otherwise kinds is
// a bitmap of nkinds bits over the grammar's symbols, and only the subtrees of nodes whose
// kind is in it are written (a subtree once, with the candidates nested in it), each
// subtree root with parent -1 and next_sibling -1; the index of every candidate goes to
// cands. With occ set too (nocc sorted start offsets of a text of litlen bytes that every
// match contains), a node outside the written subtrees whose byte range holds no
// occurrence is skipped with its whole subtree: no match can be in it.
#define HK_FILTER const uint8_t *kinds, uint32_t nkinds, const uint32_t *occ, uint32_t nocc, uint32_t litlen

// hk_parse_flatten parses src with parser and flattens the tree (see hk_flatten_tree). It
// returns -1 when the parse was cancelled or timed out, 0 otherwise. The tree is deleted
// unless the buffers were too small: then res->tree holds it for hk_flatten_tree.
int hk_parse_flatten(TSParser *parser, const char *src, uint32_t len, HK_FILTER,
                     hk_node *out, int32_t *cands, uint32_t cap, hk_result *res);

// hk_flatten_tree walks tree in pre-order and writes up to cap records into out and cap
// candidate indices into cands, as the filter says, then deletes the tree if everything
// fit (res->tree NULL); otherwise res->tree is tree.
void hk_flatten_tree(TSTree *tree, HK_FILTER, hk_node *out, int32_t *cands, uint32_t cap,
                     hk_result *res);

// hk_tree_delete frees a tree kept alive by hk_parse_flatten.
void hk_tree_delete(TSTree *tree);

// hk_parse_only parses src and frees the tree (-1: cancelled), for benchmarks.
int hk_parse_only(TSParser *parser, const char *src, uint32_t len);

// A cancellation flag for ts_parser_set_cancellation_flag: hk_flag_new allocates one
// (zero, NULL when out of memory), hk_flag_set stores 1 atomically (the runtime loads it
// atomically every hundred parse steps and then gives up; a NULL flag is ignored),
// hk_flag_free frees it.
size_t *hk_flag_new(void);
void hk_flag_set(size_t *flag);
void hk_flag_free(size_t *flag);
