package webfetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSmoke(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>T</title></head><body><nav>menu</nav><article><h1>Hello</h1><p>World of text here.</p></article></body></html>")
	}))
	defer srv.Close()
	f, err := New(AllowLoopbackForTests())
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/page"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(Render(r))
}
