// Declarations of the few tree-sitter runtime functions tsflat uses. The runtime itself is
// compiled by github.com/smacker/go-tree-sitter (linked through a blank import), so these
// must match its api.h (ABI 14).
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef uint16_t TSSymbol;
typedef struct TSLanguage TSLanguage;
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct TSPoint { uint32_t row; uint32_t column; } TSPoint;
typedef struct TSNode { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct TSTreeCursor { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

TSParser *ts_parser_new(void);
void ts_parser_delete(TSParser *self);
bool ts_parser_set_language(TSParser *self, const TSLanguage *language);
TSTree *ts_parser_parse_string(TSParser *self, const TSTree *old_tree, const char *string, uint32_t length);
void ts_parser_set_timeout_micros(TSParser *self, uint64_t timeout_micros);
void ts_parser_set_cancellation_flag(TSParser *self, const size_t *flag);
void ts_parser_reset(TSParser *self);
void ts_tree_delete(TSTree *self);
TSNode ts_tree_root_node(const TSTree *self);
TSSymbol ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
TSPoint ts_node_start_point(TSNode self);
TSPoint ts_node_end_point(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_missing(TSNode self);
bool ts_node_is_extra(TSNode self);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
uint32_t ts_language_symbol_count(const TSLanguage *self);
const char *ts_language_symbol_name(const TSLanguage *self, TSSymbol symbol);
uint32_t ts_language_version(const TSLanguage *self);

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

// hk_flatten parses src with parser and writes up to cap records into out, in pre-order.
// It returns the number of nodes in the tree (more than cap means "grow and call again"),
// or -1 when the parse was cancelled or timed out. The tree is always deleted.
int64_t hk_flatten(TSParser *parser, const char *src, uint32_t len, hk_node *out, uint32_t cap);
