package store_test

import (
	"context"
	"fmt"

	"github.com/harnesskit/harnesskit/taskboard/store"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// A Store writes f's result only when nothing it read has changed; taskboardtest.TestStore
// checks an implementation against the whole contract.
func Example() {
	var st store.Store = taskboardtest.NewStore()
	ctx := context.Background()
	err := st.Update(ctx, []string{"shards/p1"}, func(vals map[string][]byte) (map[string][]byte, error) {
		_, present := vals["shards/p1"]
		fmt.Println("present before:", present)
		return map[string][]byte{"shards/p1": []byte("v1")}, nil
	})
	if err != nil {
		fmt.Println(err)
	}
	got, _ := st.Get(ctx, "shards/p1", "shards/p2")
	fmt.Printf("p1=%s, p2 present: %v\n", got["shards/p1"], got["shards/p2"] != nil)
	fmt.Println("conformance:", taskboardtest.TestStore(ctx, st))
	// Output:
	// present before: false
	// p1=v1, p2 present: false
	// conformance: <nil>
}
