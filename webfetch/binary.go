package webfetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harnesskit/harnesskit/wfs"
)

// Saved file names have at most 180 characters and 200 bytes (room for a "-999" suffix and
// the write layer's temporary names within the 255 bytes file systems allow).
const (
	maxFilenameLen   = 180
	maxFilenameBytes = 200
	maxExtBytes      = 32
)

// readBinary handles a binary body. Without SaveBinary nothing beyond the sniff window is
// read. With it, the body is read up to MaxBinaryBytes and saved; over the limit only the
// metadata is returned and nothing is written.
func (f *Fetcher) readBinary(ctx context.Context, c *call, st *stored, final *url.URL, resp *http.Response, body io.Reader, prefix []byte, complete bool, kind BinaryKind) (*stored, error) {
	st.binary = &BinaryInfo{Kind: kind}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if media == "" || media == "application/octet-stream" {
		media, _, _ = mime.ParseMediaType(http.DetectContentType(prefix))
	}
	st.filename = chooseFilename(resp.Header.Get("Content-Disposition"), final, media, f.now().UnixMilli())
	st.quality = []QualitySignal{}
	if !c.req.SaveBinary {
		return st, nil
	}
	limit := f.cfg.limits.MaxBinaryBytes
	st.binary.DownloadLimit = limit
	if resp.ContentLength > limit {
		st.binary.MetadataOnly = true
		return st, nil
	}
	data := prefix
	if !complete {
		var buf bytes.Buffer
		buf.Write(prefix)
		if _, err := io.Copy(&buf, io.LimitReader(body, limit+1-int64(len(prefix)))); err != nil {
			return nil, readErr(ctx, final, err)
		}
		data = buf.Bytes()
	}
	if int64(len(data)) > limit {
		st.binary.MetadataOnly = true
		st.truncated = true
		return st, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, readErr(ctx, final, err)
	}
	p, err := f.saveFile(ctx, st.filename, data)
	if err != nil {
		return nil, err
	}
	st.binBytes = data
	st.binary.Saved, st.binary.SavedPath = true, p
	return st, nil
}

// reuseSaved makes sure a cached saved binary still exists on disk, writing it again under a
// new unique name when it was removed or changed.
func (f *Fetcher) reuseSaved(ctx context.Context, st *stored) error {
	if st.binary == nil || !st.binary.Saved {
		return nil
	}
	if fi, err := os.Stat(st.binary.SavedPath); err == nil && fi.Size() == int64(len(st.binBytes)) {
		return nil
	}
	p, err := f.saveFile(ctx, st.filename, st.binBytes)
	if err != nil {
		return err
	}
	st.binary.SavedPath = p
	return nil
}

// prepareBinaryDir makes sure the binary directory exists (creating it 0700 when missing)
// and is private: it refuses a directory that is a symbolic link, is not a directory,
// belongs to another user or is open to group or others (where the platform has owners and
// mode bits). It returns what it inspected.
func prepareBinaryDir(dir string) (fs.FileInfo, error) {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return nil, dirErr(dir, "creating its parent failed: "+err.Error(), err)
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, dirErr(dir, "creating it failed: "+err.Error(), err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return nil, dirErr(dir, err.Error(), err)
	}
	if why := notPrivate(fi); why != "" {
		return nil, dirErr(dir, why+"; binaries are saved only in a private directory (owned by this user, mode 0700, not a link): remove it or configure another directory", nil)
	}
	return fi, nil
}

func dirErr(dir, why string, cause error) error {
	return &Error{Err: ErrFilename, Msg: "Cannot save binaries in " + dir + ": " + why, Cause: cause}
}

// openSaveFS is how saves reach the binary directory: through the write layer, over an
// os.Root opened on it. Tests replace it.
type openSaveFS func(dir string) (wfs.FS, func() error, error)

func osSaveFS(dir string) (wfs.FS, func() error, error) {
	fsys, err := wfs.NewOSFS(dir)
	if err != nil {
		return nil, nil, err
	}
	return fsys, fsys.Close, nil
}

// saveFile writes data in the binary directory under a unique name derived from name, as
// one write-layer transaction per candidate name: the file is created new (never replacing
// anything, without needing hard links), with mode 0600, complete or absent. A name that
// exists (a file, a directory, a link, a FIFO) moves on to the next candidate.
func (f *Fetcher) saveFile(ctx context.Context, name string, data []byte) (string, error) {
	dir := f.cfg.binaryDir
	checked, err := prepareBinaryDir(dir)
	if err != nil {
		return "", err
	}
	fsys, closeFS, err := f.cfg.saveFS(dir)
	if err != nil {
		return "", dirErr(dir, "opening it failed: "+err.Error(), err)
	}
	defer closeFS()
	if opened, err := fsys.Stat(dir); err != nil || !os.SameFile(checked, opened) {
		return "", dirErr(dir, "it was replaced while being opened", err)
	}
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i <= 999; i++ {
		cand := name
		if i > 0 {
			cand = uniqueName(stem, ext, i)
		}
		target := filepath.Join(dir, cand)
		err := createFile(ctx, fsys, dir, target, data)
		switch {
		case err == nil:
			return target, nil
		case ctx.Err() != nil:
			return "", &Error{Err: ErrFilename, Msg: "Saving " + cand + " in " + dir + " was interrupted: " + ctx.Err().Error(), Cause: ctx.Err()}
		case !errors.Is(err, fs.ErrExist):
			return "", &Error{Err: ErrFilename, Msg: "Saving " + cand + " in " + dir + " failed: " + err.Error(), Cause: err}
		}
	}
	return "", &Error{Err: ErrFilename, Msg: "Unable to allocate unique filename for binary content"}
}

// createFile commits one new file.
func createFile(ctx context.Context, fsys wfs.FS, dir, target string, data []byte) error {
	tx, err := wfs.Begin(fsys, dir)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Abort() }()
	tx.Create(target, data, 0o600)
	_, err = tx.Commit(ctx)
	return err
}

var extByKind = map[string]string{
	"application/pdf": "pdf", "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif",
	"image/webp": "webp", "image/svg+xml": "svg", "application/zip": "zip",
	"application/gzip": "gz", "application/x-gzip": "gz", "audio/mpeg": "mp3", "video/mp4": "mp4",
	"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "video/webm": "webm", "audio/webm": "webm",
}

// chooseFilename picks the saved file's name: Content-Disposition filename* (RFC 5987),
// then filename, then the last URL path segment when it has a dot, else
// webfetch-<unix-ms>.<ext>. The result is sanitised.
func chooseFilename(disposition string, u *url.URL, media string, unixMs int64) string {
	name := dispositionName(disposition)
	if name == "" && u != nil {
		seg := path.Base(u.Path)
		if dec, err := url.PathUnescape(seg); err == nil {
			seg = dec
		}
		if strings.Contains(seg, ".") && seg != "." && seg != ".." && seg != "/" {
			name = seg
		}
	}
	if name == "" {
		name = "webfetch-" + strconv.FormatInt(unixMs, 10) + "." + extForMedia(strings.ToLower(media))
	}
	return sanitizeFilename(name)
}

// extForMedia returns the generated-name extension for a media type.
func extForMedia(media string) string {
	if e, ok := extByKind[media]; ok {
		return e
	}
	return "bin"
}

func dispositionName(h string) string {
	if h == "" {
		return ""
	}
	// filename* first, parsed by hand so a malformed header still yields a name.
	lower := strings.ToLower(h)
	if i := strings.Index(lower, "filename*="); i >= 0 {
		v := h[i+len("filename*="):]
		if j := strings.IndexByte(v, ';'); j >= 0 {
			v = v[:j]
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if k := strings.Index(v, "''"); k >= 0 {
			v = v[k+2:]
		}
		if dec, err := url.PathUnescape(v); err == nil && utf8.ValidString(dec) {
			return dec
		}
	}
	if _, params, err := mime.ParseMediaType(h); err == nil {
		if n := params["filename"]; n != "" {
			return n
		}
	}
	if i := strings.Index(lower, "filename="); i >= 0 {
		v := h[i+len("filename="):]
		if j := strings.IndexByte(v, ';'); j >= 0 {
			v = v[:j]
		}
		return strings.Trim(strings.TrimSpace(v), `"`)
	}
	return ""
}

var (
	badChars   = regexp.MustCompile(`[<>:"/\\|?*\x00-\x1f\x7f]`)
	spaceRuns  = regexp.MustCompile(`\s+`)
	deviceName = regexp.MustCompile(`(?i)^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³]) *(\..*)?$`)
)

// sanitizeFilename makes name safe on every platform: control and format characters
// (including bidirectional overrides) and <>:"/\|?* become '_', whitespace runs one space,
// leading and trailing dots and spaces are trimmed, an empty name becomes "download", Windows
// device names (CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0–9, LPT0–9 and the superscript-digit
// forms, with any extension or trailing spaces) get a leading '_', and the result is at most
// 180 characters with its extension kept.
func sanitizeFilename(name string) string {
	name = strings.ToValidUTF8(name, "_")
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return '_'
		}
		return r
	}, name)
	name = badChars.ReplaceAllString(name, "_")
	name = spaceRuns.ReplaceAllString(name, " ")
	name = strings.Trim(name, ". ")
	if name == "" {
		name = "download"
	}
	if deviceName.MatchString(name) {
		name = "_" + name
	}
	ext := path.Ext(name)
	if utf8.RuneCountInString(ext) > 20 || len(ext) > maxExtBytes {
		ext = ""
	}
	return fitName(strings.TrimSuffix(name, ext), "", ext)
}

// uniqueName is the i-th alternative to stem+ext: "stem-i.ext", the stem shortened so the
// suffix is never cut off.
func uniqueName(stem, ext string, i int) string {
	return fitName(stem, "-"+strconv.Itoa(i), ext)
}

// fitName joins stem, suffix and ext, shortening the stem (on a character boundary) so the
// result has at most 180 characters and 200 bytes.
func fitName(stem, suffix, ext string) string {
	roomChars := maxFilenameLen - utf8.RuneCountInString(suffix+ext)
	roomBytes := maxFilenameBytes - len(suffix+ext)
	cut, chars := 0, 0
	for i, r := range stem {
		if chars == roomChars || i+utf8.RuneLen(r) > roomBytes {
			break
		}
		cut, chars = i+utf8.RuneLen(r), chars+1
	}
	if cut < len(stem) {
		stem = strings.TrimRight(stem[:cut], ". ")
	}
	name := strings.Trim(stem+suffix+ext, ". ")
	if name == "" || name == strings.Trim(ext, ".") && stem == "" && suffix == "" {
		name = "download" + ext
	}
	return name
}
