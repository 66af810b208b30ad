package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestAttackSSRFSpellings holds inputs that try to reach a refused address through an
// unusual spelling of the host: numeric IPv4 forms (which a getaddrinfo-style resolver turns
// into 127.0.0.1), zone ids, embedded IPv4 in IPv6 (mapped, compatible, NAT64 at every
// RFC 6052 position) and DNS answers mixing public and refused addresses. None may be
// dialled.
func TestAttackSSRFSpellings(t *testing.T) {
	cases := []struct {
		name    string
		url     string
		resolve map[string]string // host -> comma-separated answer
	}{
		{name: "decimal_ipv4", url: "http://2130706433:%s/", resolve: map[string]string{"2130706433": "127.0.0.1"}},
		{name: "hex_ipv4", url: "http://0x7f.1:%s/", resolve: map[string]string{"0x7f.1": "127.0.0.1"}},
		{name: "octal_ipv4", url: "http://0177.0.0.1:%s/", resolve: map[string]string{"0177.0.0.1": "127.0.0.1"}},
		{name: "short_ipv4", url: "http://127.1:%s/", resolve: map[string]string{"127.1": "127.0.0.1"}},
		{name: "zero_host", url: "http://0:%s/", resolve: map[string]string{"0": "0.0.0.0"}},
		{name: "unspecified_ipv4", url: "http://0.0.0.0:%s/"},
		{name: "unspecified_ipv6", url: "http://[::]:%s/"},
		{name: "ipv6_link_local_zone", url: "http://[fe80::1%%25lo]:%s/"},
		{name: "ipv6_loopback_zone", url: "http://[::1%%25lo]:%s/"},
		{name: "ipv4_mapped_private_hex", url: "http://[::ffff:a00:1]:%s/"},
		{name: "ipv4_compatible_loopback", url: "http://[::127.0.0.1]:%s/"},
		{name: "ula", url: "http://[fd00::1]:%s/"},
		{name: "cgnat", url: "http://100.64.0.1:%s/"},
		{name: "multicast", url: "http://224.0.0.1:%s/"},
		{name: "metadata_name", url: "http://metadata.google.internal/"},
		{name: "localhost_trailing_dot_upper", url: "http://LOCALHOST.:%s/"},
		{name: "localhost_fullwidth", url: "http://ｌｏｃａｌｈｏｓｔ:%s/"},
		{name: "ideographic_dots_loopback", url: "http://127。0。0。1:%s/"},
		{name: "fullwidth_digits_loopback", url: "http://１２７.０.０.１:%s/"},
		{name: "metadata_trailing_dot", url: "http://169.254.169.254./", resolve: map[string]string{"169.254.169.254.": "169.254.169.254"}},
		{name: "nat64_well_known_loopback", url: "http://[64:ff9b::7f00:1]:%s/"},
		// 64:ff9b:1::/48 is the local-use NAT64 prefix: a translator may use /48, /56, /64
		// or /96 inside it, so the IPv4 address can sit at more than one position.
		{name: "nat64_local_use_48_loopback", url: "http://[64:ff9b:1:7f00:0:100:808:808]:%s/"},
		{name: "nat64_local_use_56_private", url: "http://[64:ff9b:1:a:0:1:808:808]:%s/"},
		{name: "nat64_local_use_64_metadata", url: "http://[64:ff9b:1:0:a9:fea9:808:808]:%s/"},
		{name: "nat64_local_use_dns_answer", url: "http://nat64.example:%s/", resolve: map[string]string{"nat64.example": "64:ff9b:1:7f00:0:100:808:808"}},
		{name: "mixed_answer_public_then_loopback", url: "http://mixed.example:%s/", resolve: map[string]string{"mixed.example": "10.1.2.3,::1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, plainHandler("secret"))
			res := &fakeResolver{}
			for h, a := range tc.resolve {
				res.set(h, a)
			}
			rt := &routeAll{target: strings.TrimPrefix(s.URL, "http://")}
			f, err := New(WithResolver(res), withRawDial(rt.dial))
			if err != nil {
				t.Fatal(err)
			}
			u := tc.url
			if strings.Contains(u, "%s") {
				u = fmt.Sprintf(u, s.port())
			}
			_, err = f.Fetch(context.Background(), Request{URL: u, LLMS: LLMSNever})
			if !errors.Is(err, ErrBlocked) && !errors.Is(err, ErrInvalidURL) {
				t.Errorf("err %v, want ErrBlocked or ErrInvalidURL", err)
			}
			if d := rt.list(); len(d) != 0 || s.total() != 0 {
				t.Errorf("dialled %v, server saw %d requests", d, s.total())
			}
		})
	}
}

// TestPropertyNAT64EmbeddingRefused: a refused IPv4 address embedded in the local-use NAT64
// prefix 64:ff9b:1::/48 at any RFC 6052 position (/48, /56, /64, /96), with every other bit
// random, is refused; so is one embedded in the well-known prefix 64:ff9b::/96.
func TestPropertyNAT64EmbeddingRefused(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p SSRFPolicy
		v4 := netip.MustParseAddr(rapid.SampledFrom([]string{"127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.7.7",
			"169.254.169.254", "100.64.3.4", "0.0.0.0", "224.0.0.251", "255.255.255.255"}).Draw(t, "v4")).As4()
		b := [16]byte(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "rest"))
		b[0], b[1], b[2], b[3], b[4], b[5] = 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01
		switch rapid.IntRange(0, 4).Draw(t, "prefix") {
		case 0: // /48
			b[6], b[7], b[9], b[10] = v4[0], v4[1], v4[2], v4[3]
		case 1: // /56
			b[7], b[9], b[10], b[11] = v4[0], v4[1], v4[2], v4[3]
		case 2: // /64
			b[9], b[10], b[11], b[12] = v4[0], v4[1], v4[2], v4[3]
		case 3: // /96 local use
			copy(b[12:], v4[:])
		default: // /96 well known
			b = [16]byte{0x00, 0x64, 0xff, 0x9b, 12: v4[0], 13: v4[1], 14: v4[2], 15: v4[3]}
		}
		addr := netip.AddrFrom16(b)
		if reason := p.denyReason(addr); reason == "" {
			t.Fatalf("%s embeds %s but is admitted", addr, netip.AddrFrom4(v4))
		}
	})
}
