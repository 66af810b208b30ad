//go:build cgo

package tsflat

// exactTokens lists, per grammar, its exact tokens: the anonymous tokens of at least two
// bytes whose node always has the token itself as its text. A token is left out when an
// alias gives another node its name (a pattern, an external token, a case-insensitive
// keyword), when an external scanner may produce it, or when it can end a production: after
// such a token the parse table reduces, which is where error recovery may insert it as a
// zero-width missing node. TestExactTokens recomputes the table from each grammar's
// grammar.json and fails on any difference.
var exactTokens = map[string]string{
	"bash":       "!= $( $(( $[ $` ${ %= && &= &> &>> (( ** **= *= += -= -a -o .. /= <& <( <<< <<= <= == =~ >& >( >= >> >>= >| [[ ^= case do elif for function if in select until while |& |= ||",
	"c":          "!= %= && &= *= += -= -> /= :: << <<= <= == >= >> >>= L\" L' U\" U' [[ ^= _Alignas _Alignof _Generic __alignof __alignof__ __asm __asm__ __attribute __attribute__ __based __declspec __except __finally __leave __try _alignof alignas alignof asm break case continue default defined do else enum for if offsetof return sizeof struct switch typedef u\" u' u8\" u8' union while |= ||",
	"cpp":        "\"\" L\" L' LR\" R\" U\" U' UR\" [[ _Alignas _Alignof _Generic __alignof __alignof__ __asm __asm__ __attribute __attribute__ __based __declspec __except __finally __leave __try _alignof alignas alignof asm break case catch co_return co_yield concept continue decltype default defined do else enum for friend if namespace offsetof operator requires return sizeof static_assert struct switch template throw try typedef u\" u' u8\" u8' u8R\" uR\" union using while",
	"csharp":     "!= %= && &= *= += -= -> /= :: << <<= <= == => >= >> >>= >>> >>>= ?? ??= Cdecl Fastcall Stdcall Thiscall ^= __makeref __reftype __refvalue add and annotations as assembly await break case catch checked checksum continue delegate disable do else enable enum event explicit field finally for foreach get goto hidden if implicit in init interface is lock method module namespace not operator or out param params property record ref remove restore return set sizeof stackalloc switch throw try type typeof typevar unchecked using warning warnings while with |= ||",
	"css":        "$= *= :: @charset @import @keyframes @media @namespace @scope @supports ^= and even has host-context is not nth-child nth-last-child odd of only or selector where |= ~=",
	"elixir":     "",
	"go":         "!= %= && &= &^ &^= *= += -= /= := <- << <<= <= == >= >> >>= ^= case chan const default defer else for func go goto if import interface map package range select struct switch type var |= ||",
	"haskell":    "#) '' as by class data default deriving else export family foreign group hiding if import in infix infixl infixr instance module rec role then using via || ⟦",
	"html":       "<! </",
	"java":       "!= %= && &= *= += -= -> ... /= :: << <<= <= == >= >> >>= >>> >>>= @interface \\{ ^= assert break case catch continue do else enum exports extends finally for if implements import instanceof interface opens package permits provides requires return switch throw throws to try uses when while |= ||",
	"javascript": "!= !== ${ %= && &&= &= ** **= *= += -= ... /= </ << <<= <= == === => >= >> >>= >>> >>>= ?? ??= ^= as break case catch class const continue debugger delete do else extends finally for from function if in instanceof new return switch throw try typeof using var void while with |= ||=",
	"json":       "",
	"kotlin":     "",
	"lua":        "-- .. // << <= == >= >> and do elseif for function goto if in local not or repeat until while ~=",
	"nix":        "",
	"php":        "!= !== #[ %= && &= ** **= *= += -= -> .= /= :: << <<< <<= <= <=> <> == === => >= >> >>= ?-> ?? ??= ^= encoding strict_types ticks unset |= |> ||",
	"python":     "!= %= &= ** **= *= += -= -> // //= /= := << <<= <= <> == >= >> >>= @= ^= __future__ and as assert case class def del elif else finally for from global if import is lambda nonlocal or try while with |=",
	"ruby":       "#{ %= && &&= &= **= *= += -= -> /= <<= => >>= BEGIN END ^= alias and begin case class def defined? do elsif for if in module not or rescue undef unless until when while |= || ||=",
	"rust":       "/* // dyn else in macro_rules! move ref try",
	"scala":      "\"\"\" /* // <% <- <: =>> >: ?=> as case class def do enum export import macro object package throw trait using yield",
	"solidity":   "",
	"swift":      "",
	"tsx":        "!= !== ${ %= && &&= &= ** **= *= += +?: -= -?: ... /= </ << <<= <= == === => >= >> >>= >>> >>>= ?: ?? ??= ^= abstract accessor as assert asserts await break case catch class continue debugger default delete do else enum extends finally for from function global if implements in infer instanceof interface is keyof of require return satisfies switch throw try typeof unique using var while with {| |= ||=",
	"typescript": "!= !== ${ %= && &&= &= ** **= *= += +?: -= -?: ... /= </ << <<= <= == === => >= >> >>= >>> >>>= ?: ?? ??= ^= abstract accessor as assert asserts await break case catch class continue debugger default delete do else enum extends finally for from function global if implements in infer instanceof interface is keyof of require return satisfies switch throw try typeof unique using var while with {| |= ||=",
	"yaml":       "",
}
