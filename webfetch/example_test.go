package webfetch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/harnesskit/harnesskit/webfetch"
)

func Example() {
	// A local server stands in for the web; loopback must be allowed explicitly.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Notes</title></head><body>
<nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<article><h1>Notes</h1>
<p>Version 2 adds streaming responses, so clients can read partial output while the server works on the rest.</p>
<pre><code class="language-sh">curl -N https://api.example.com/v2/stream</code></pre>
</article><footer>Copyright Example</footer></body></html>`)
	}))
	defer srv.Close()

	f, err := webfetch.New(webfetch.AllowLoopbackForTests())
	if err != nil {
		panic(err)
	}
	defer f.Close()
	res, err := f.Fetch(context.Background(), webfetch.Request{URL: srv.URL + "/notes", OmitMetadata: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Title, res.ExtractedMain)
	fmt.Print(webfetch.Render(res))

	// Private addresses are refused before any connection.
	_, err = f.Fetch(context.Background(), webfetch.Request{URL: "http://10.0.0.1/admin"})
	fmt.Println(err)
	// Output:
	// Notes true
	// Version 2 adds streaming responses, so clients can read partial output while the server works on the rest.
	//
	// ```sh
	// curl -N https://api.example.com/v2/stream
	// ```
	// Blocked by network policy: 10.0.0.1 is a refused address (private network); webfetch only connects to public internet addresses
}
