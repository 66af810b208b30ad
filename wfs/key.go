package wfs

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// A KeyFS holds its journals' key (see Trust); other FSs use [UserJournalKey].
type KeyFS interface {
	FS
	// JournalKey returns the secret (at least 16 bytes) that signs and verifies journals.
	JournalKey() ([]byte, error)
}

// userKeyName is the user's journal key file, under os.UserConfigDir.
const userKeyName = "harnesskit/wfs-journal.key"

// journalKey returns the key that signs fsys's journals.
func journalKey(fsys FS) ([]byte, error) {
	if k, ok := fsys.(KeyFS); ok {
		return k.JournalKey()
	}
	return UserJournalKey()
}

// UserJournalKey returns this user's journal key, harnesskit/wfs-journal.key under
// [os.UserConfigDir], made on first use (see Trust); an unsafe one is refused (ErrKey):
// remove it and a new one is made.
func UserJournalKey() ([]byte, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("%w: %v; give the file system a key (OSFS.SetJournalKey)", ErrKey, err)
	}
	name := filepath.Join(dir, filepath.FromSlash(userKeyName))
	key, err := readKeyFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createKeyFile(name); err != nil {
			return nil, fmt.Errorf("%w: creating %s: %v", ErrKey, name, err)
		}
		key, err = readKeyFile(name)
	}
	if err != nil && !errors.Is(err, ErrKey) {
		err = fmt.Errorf("%w: reading the key file %s: %v; run as the user whose home this is, point HOME (or XDG_CONFIG_HOME) at this user's own, or give the file system a key (OSFS.SetJournalKey)", ErrKey, name, err)
	}
	if err != nil {
		return nil, err
	}
	return key, nil
}

const keySize = 32

func readKeyFile(name string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	unsafe := func(why string) error {
		return fmt.Errorf("%w: the key file %s %s; remove it (a new key is made on the next write)", ErrKey, name, why)
	}
	switch {
	case !fi.Mode().IsRegular():
		return nil, unsafe("is not a regular file")
	case fi.Size() != keySize:
		return nil, unsafe(fmt.Sprintf("has %d bytes, not %d", fi.Size(), keySize))
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0:
		return nil, unsafe(fmt.Sprintf("can be read by others (mode %v)", fi.Mode().Perm()))
	case !ownedByUs(fi):
		return nil, unsafe("belongs to another user")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	key := make([]byte, keySize)
	if _, err := io.ReadFull(f, key); err != nil {
		return nil, unsafe("cannot be read: " + err.Error())
	}
	return key, nil
}

// createKeyFile writes a new key to a temporary file and links it into place, so that two
// processes making the key at once agree on one (the second link fails, and both read the
// first).
func createKeyFile(name string) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	key := make([]byte, keySize)
	if _, err := io.ReadFull(rand.Reader, key); err != nil {
		return err
	}
	var b [8]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".wfs-journal.key."+hex.EncodeToString(b[:]))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	_, err = f.Write(key)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = os.Link(tmp, name)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		// No hard links here: rename (two first uses at once may then each use their own
		// key for a moment; a journal signed with the lost one is reported, never acted on).
		err = os.Rename(tmp, name)
	}
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// newKey returns a fresh random key (a MemFS's).
func newKey() []byte {
	k := make([]byte, keySize)
	_, _ = rand.Read(k) // never fails (crypto/rand.Read)
	return k
}

// macSize is how many bytes of HMAC-SHA-256 a journal line carries (128 bits).
const macSize = 16

// chainMAC returns the MAC of one journal line: HMAC-SHA-256 under key over the MAC of the
// line before (none for the header) and the line, cut to macSize bytes. A line cannot be
// changed, moved, or taken from another journal without the key.
func chainMAC(key, prev, line []byte) []byte {
	h := hmac.New(sha256.New, key)
	if prev == nil {
		h.Write([]byte("hkwfs journal 2\n"))
	} else {
		h.Write(prev)
	}
	h.Write(line)
	return h.Sum(nil)[:macSize]
}

func (m *MemFS) JournalKey() ([]byte, error) { return m.key, nil }

// SetJournalKey makes o sign journals with key (≥ [MinKeySize] bytes), not the user's key;
// every writer of a tree must use the same key.
func (o *OSFS) SetJournalKey(key []byte) error {
	if len(key) < MinKeySize {
		return fmt.Errorf("%w: a journal key needs at least %d bytes, got %d", ErrKey, MinKeySize, len(key))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.key = append([]byte(nil), key...)
	return nil
}

func (o *OSFS) JournalKey() ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.key != nil {
		return o.key, nil
	}
	k, err := UserJournalKey()
	if err != nil {
		return nil, err
	}
	o.key = k
	return k, nil
}
