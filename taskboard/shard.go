package taskboard

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// A shared board keeps one shard per parent session: that parent's records, alias
// counters, the leases, tombstones, epochs and audit lines of its tasks, and the parent's
// own managed flag, wait latch and last user identity. A step loads the shards it needs
// into one Board, runs, and writes every loaded shard back.

// shardVersion is the encoding version of a shard.
const shardVersion = 1

// maxShardResult bounds a result kept in a shard: the full text stays at the host (its
// transcript); the board keeps what its view shows.
const maxShardResult = 500

// maxShardWrites is how many write IDs a shard remembers, to tell after an uncertain
// commit whether it landed.
const maxShardWrites = 16

type shardState struct {
	V                             int
	NextGen, NextToken, NextEpoch uint64
	Records                       []shardRecord        `json:",omitempty"`
	Aliases                       map[string]uint64    `json:",omitempty"` // prefix → last number
	Leases                        []shardLease         `json:",omitempty"`
	Tombs                         map[string]shardTomb `json:",omitempty"`
	Epochs                        map[string]uint64    `json:",omitempty"`
	TombQ                         []shardTombRef       `json:",omitempty"`
	Forced                        []Lease              `json:",omitempty"`
	Managed, Waiting              bool                 `json:",omitempty"`
	LastUser                      string               `json:",omitempty"`
	Tracked                       map[string]uint64    `json:",omitempty"`
	Shown                         []shownEntry         `json:",omitempty"`
	Writes                        []string             `json:",omitempty"`
}

type shardRecord struct {
	Record
	Files []contextFile `json:",omitempty"`
}

type shardLease struct {
	leaseGrant
	Since time.Time
}

type shardTomb struct {
	Reason, Parent, Agent string
	State                 State
	Summary               string
}

type shardTombRef struct {
	ID    string
	Epoch uint64
}

// loadShards returns a board holding the decoded shards (parent → encoded shard; a
// missing or empty value is an empty shard). Counters take the largest value of the shards.
func loadShards(o Options, self string, shards map[string][]byte) (*Board, map[string]string, error) {
	b, err := NewBoard(o)
	if err != nil {
		return nil, nil, err
	}
	b.self = self
	home := map[string]string{}
	parents := make([]string, 0, len(shards))
	for p := range shards {
		parents = append(parents, p)
	}
	sort.Strings(parents)
	for _, parent := range parents {
		data := shards[parent]
		if len(data) == 0 {
			continue
		}
		var s shardState
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, nil, fmt.Errorf("taskboard: shard of %s is corrupt: %w", parent, err)
		}
		if s.V != shardVersion {
			return nil, nil, fmt.Errorf("taskboard: shard of %s has encoding version %d; this build reads %d", parent, s.V, shardVersion)
		}
		b.nextGen, b.nextToken, b.nextEpoch = max(b.nextGen, s.NextGen), max(b.nextToken, s.NextToken), max(b.nextEpoch, s.NextEpoch)
		for _, sr := range s.Records {
			r := sr.Record
			r.contextFiles = sr.Files
			b.put(&r)
			home[r.TaskID] = parent
		}
		for prefix, n := range s.Aliases {
			b.aliases[aliasKey{parent, prefix}] = n
		}
		for _, l := range s.Leases {
			b.leases[l.TaskID] = l.leaseGrant
			b.leaseSince[l.TaskID] = l.Since
			home[l.TaskID] = parent
		}
		for id, t := range s.Tombs {
			b.tombs[id] = tombstone{reason: t.Reason, parent: t.Parent, agent: t.Agent, state: t.State, summary: t.Summary}
			home[id] = parent
		}
		for id, e := range s.Epochs {
			b.epochs[id] = e
			home[id] = parent
		}
		for _, t := range s.TombQ {
			b.tombQ = append(b.tombQ, tombRef{t.ID, t.Epoch})
		}
		b.forced = append(b.forced, s.Forced...)
		if s.Managed {
			b.managed[parent] = true
		}
		if s.Waiting {
			b.waits[parent] = true
		}
		if s.LastUser != "" {
			b.lastUser[parent] = s.LastUser
		}
		for id, g := range s.Tracked {
			b.tracked[id] = g
			home[id] = parent
		}
		if len(s.Shown) > 0 {
			b.shown[parent] = s.Shown
		}
	}
	sort.Slice(b.tombQ, func(i, j int) bool { return b.tombQ[i].epoch < b.tombQ[j].epoch })
	return b, home, nil
}

// saveShards encodes the board's state back into one shard per parent of parents. A task's
// home is where it was loaded from, else its record's parent; state of a task whose home
// is not among parents is an error (a step may not move a task between shards).
func saveShards(b *Board, home map[string]string, parents []string, writeID string, prev map[string][]byte) (map[string][]byte, error) {
	out := map[string]*shardState{}
	for _, p := range parents {
		s := &shardState{V: shardVersion, NextGen: b.nextGen, NextToken: b.nextToken, NextEpoch: b.nextEpoch}
		if data := prev[p]; len(data) > 0 {
			var old shardState
			if json.Unmarshal(data, &old) == nil {
				s.Writes = old.Writes
			}
		}
		if writeID != "" {
			s.Writes = append(s.Writes, writeID)
		}
		if len(s.Writes) > maxShardWrites {
			s.Writes = s.Writes[len(s.Writes)-maxShardWrites:]
		}
		if b.managed[p] {
			s.Managed = true
		}
		s.Waiting, s.LastUser, s.Shown = b.waits[p], b.lastUser[p], b.shown[p]
		out[p] = s
	}
	homeOf := func(id string) (*shardState, error) {
		p, ok := home[id]
		if !ok {
			if r, has := b.records[id]; has {
				p = r.ParentID
			}
		}
		s := out[p]
		if s == nil {
			return nil, fmt.Errorf("taskboard: task %s belongs to the shard of %q, which this step did not load", id, p)
		}
		return s, nil
	}
	for _, id := range b.sortedIDs() {
		r := b.records[id]
		s := out[r.ParentID]
		if s == nil {
			return nil, fmt.Errorf("taskboard: task %s has parent %q, whose shard this step did not load", id, r.ParentID)
		}
		c := r.clone()
		c.contextFiles = nil
		c.ResultSummary = truncateRunes(c.ResultSummary, maxShardResult)
		s.Records = append(s.Records, shardRecord{Record: c, Files: r.contextFiles})
	}
	for k, n := range b.aliases {
		if s := out[k.parent]; s != nil {
			if s.Aliases == nil {
				s.Aliases = map[string]uint64{}
			}
			s.Aliases[k.prefix] = n
		}
	}
	for _, id := range sortedKeys(b.leases) {
		s, err := homeOf(id)
		if err != nil {
			return nil, err
		}
		s.Leases = append(s.Leases, shardLease{leaseGrant: b.leases[id], Since: b.leaseSince[id]})
	}
	for id, t := range b.tombs {
		s, err := homeOf(id)
		if err != nil {
			return nil, err
		}
		if s.Tombs == nil {
			s.Tombs = map[string]shardTomb{}
		}
		s.Tombs[id] = shardTomb{Reason: t.reason, Parent: t.parent, Agent: t.agent, State: t.state, Summary: t.summary}
	}
	for id, e := range b.epochs {
		s, err := homeOf(id)
		if err != nil {
			return nil, err
		}
		if s.Epochs == nil {
			s.Epochs = map[string]uint64{}
		}
		s.Epochs[id] = e
	}
	for _, t := range b.tombQ {
		if s, err := homeOf(t.id); err == nil {
			s.TombQ = append(s.TombQ, shardTombRef{t.id, t.epoch})
		}
	}
	for _, f := range b.forced {
		if s, err := homeOf(f.TaskID); err == nil {
			s.Forced = append(s.Forced, f)
		}
	}
	for id, g := range b.tracked {
		s, err := homeOf(id)
		if err != nil {
			return nil, err
		}
		if s.Tracked == nil {
			s.Tracked = map[string]uint64{}
		}
		s.Tracked[id] = g
	}
	enc := map[string][]byte{}
	for p, s := range out {
		data, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		enc[p] = data
	}
	return enc, nil
}

// shardWrites returns the write IDs an encoded shard remembers.
func shardWrites(data []byte) []string {
	var s struct{ Writes []string }
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	return s.Writes
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
