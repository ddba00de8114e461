//! Output files that never look complete unless they are: every command's
//! output goes through [`OutputFile`].
//!
//! * `-` is standard output.
//! * A regular file (or a new one) is written to a temporary file beside it,
//!   `.NAME.XXXXXX.partial`, renamed to `NAME` by [`OutputFile::commit`] once
//!   everything is written and synced. Dropped without a commit (an error),
//!   the temporary file is removed; [`OutputFile::keep_partial`] renames it
//!   to `NAME.partial` instead (finished queries of a failed search). On
//!   SIGINT, SIGTERM or SIGHUP the signal handler renames the temporary file
//!   to `NAME.partial` and exits with 128 + the signal; a SIGKILL leaves the
//!   temporary file. Either way `NAME` itself is never touched.
//! * An existing file that is not a regular file (`/dev/null`, `/dev/full`,
//!   a FIFO) is written in place: it cannot be replaced by a rename.
//! * A name ending in `.gz` is gzip-compressed (flate2).
//!
//! [`OutputFile::create`] checks the target before any work starts: not a
//! directory, not one of the inputs, in a directory where a file can be
//! created.

use std::ffi::CString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};

use anyhow::{Context, bail};
use flate2::Compression;
use flate2::write::GzEncoder;
use tempfile::TempPath;

/// `-`: standard input or output.
pub const STANDARD_STREAM: &str = "-";

/// Where an output goes, checked; see the module docs.
pub struct OutputFile {
    stream: Option<Stream>,
    /// The temporary file, removed when dropped; `None` for standard output
    /// and files written in place.
    temp: Option<TempPath>,
    /// The target as given (`-` for standard output).
    target: PathBuf,
}

enum Stream {
    Plain(BufWriter<Box<dyn Write + Send>>),
    Gzip(GzEncoder<BufWriter<Box<dyn Write + Send>>>),
}

impl OutputFile {
    /// Opens `target` for writing (see the module docs). `inputs` are the
    /// command's input files: writing over one is refused.
    ///
    /// # Errors
    /// When `target` is a directory or an input, or the temporary file
    /// cannot be created beside it.
    pub fn create(target: &Path, inputs: &[&Path]) -> anyhow::Result<OutputFile> {
        Self::open(target, inputs, false)
    }

    /// As [`OutputFile::create`], but the new file starts with the target's
    /// current contents (when it exists): appending without ever leaving a
    /// half-written file. A gzipped target gets a new gzip member.
    pub fn append(target: &Path, inputs: &[&Path]) -> anyhow::Result<OutputFile> {
        Self::open(target, inputs, true)
    }

    fn open(target: &Path, inputs: &[&Path], append: bool) -> anyhow::Result<OutputFile> {
        let name = target.display();
        if target.as_os_str() == STANDARD_STREAM {
            let out: Box<dyn Write + Send> = Box::new(io::stdout());
            return Ok(OutputFile {
                stream: Some(Stream::Plain(BufWriter::new(out))),
                temp: None,
                target: target.to_path_buf(),
            });
        }
        check_target(target, inputs)?;
        let existing = std::fs::metadata(target).ok();
        let gzip = target.extension().is_some_and(|e| e == "gz");
        let (file, temp): (File, Option<TempPath>) = match existing {
            Some(meta) if !meta.is_file() => (
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(target)
                    .with_context(|| format!("opening {name} for writing"))?,
                None,
            ),
            _ => {
                let (mut file, path) = temp_beside(target)?.into_parts();
                if append && existing.is_some() {
                    let mut old = File::open(target).with_context(|| format!("reading {name}"))?;
                    io::copy(&mut old, &mut file)
                        .with_context(|| format!("copying {name} to {}", path.display()))?;
                }
                (file, Some(path))
            }
        };
        let out: Box<dyn Write + Send> = Box::new(file);
        let out = BufWriter::new(out);
        let stream = if gzip {
            Stream::Gzip(GzEncoder::new(out, Compression::default()))
        } else {
            Stream::Plain(out)
        };
        if let Some(temp) = &temp {
            interrupt::watch(temp, &partial_name(target));
        }
        Ok(OutputFile {
            stream: Some(stream),
            temp,
            target: target.to_path_buf(),
        })
    }

    /// The target as given.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Hands everything written so far to the operating system (a gzip
    /// stream is sync-flushed, so it decompresses up to here): what a
    /// signal then keeps in `NAME.partial` ends here.
    pub fn checkpoint(&mut self) -> io::Result<()> {
        self.flush()
    }

    /// Finishes the output: compresses the rest, syncs the file to disk and
    /// renames it to the target.
    ///
    /// # Errors
    /// When a write, the sync or the rename fails; the target is untouched
    /// and the temporary file removed.
    pub fn commit(mut self) -> anyhow::Result<()> {
        let name = self.target.display().to_string();
        let stream = self.stream.take().expect("a stream until committed");
        let file = match stream {
            Stream::Plain(w) => w.into_inner().map_err(|e| e.into_error()),
            Stream::Gzip(gz) => gz
                .finish()
                .and_then(|w| w.into_inner().map_err(|e| e.into_error())),
        };
        let mut file = file.with_context(|| format!("writing {name}"))?;
        file.flush().with_context(|| format!("writing {name}"))?;
        drop(file);
        if let Some(temp) = self.temp.take() {
            interrupt::unwatch();
            // Synced before the rename, so that a crash leaves either the
            // old target or the complete new one.
            File::open(&temp)
                .and_then(|f| f.sync_all())
                .with_context(|| format!("syncing {}", temp.display()))?;
            temp.persist(&self.target)
                .map_err(|e| e.error)
                .with_context(|| format!("renaming the finished output to {name}"))?;
        }
        Ok(())
    }

    /// Gives up on the output but keeps what was written, as `NAME.partial`;
    /// returns that name (`None` for standard output or a file written in
    /// place, which keep what they got anyway).
    pub fn keep_partial(mut self) -> Option<PathBuf> {
        let _ = self.flush();
        if let Some(Stream::Gzip(gz)) = self.stream.take() {
            let _ = gz.finish().and_then(|mut w| w.flush());
        }
        let temp = self.temp.take()?;
        interrupt::unwatch();
        let partial = partial_name(&self.target);
        temp.persist(&partial).ok().map(|()| partial)
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.stream.as_mut().expect("a stream until committed") {
            Stream::Plain(w) => w.write(buf),
            Stream::Gzip(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.stream.as_mut() {
            Some(Stream::Plain(w)) => w.flush(),
            Some(Stream::Gzip(w)) => w.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.temp.is_some() {
            interrupt::unwatch();
        }
        // The temporary file (if any) is removed by `TempPath`'s drop. The
        // stream is dropped first without flushing its buffer into a file
        // that is about to go.
        if let Some(Stream::Plain(w)) = self.stream.take() {
            let (_, _) = w.into_parts();
        }
    }
}

/// `NAME.partial`: where an interrupted or failed run's finished part stays.
pub fn partial_name(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Checks that `target` can be an output: not a directory, not one of
/// `inputs` (the same file under any name), in an existing directory.
///
/// # Errors
/// Naming the target and what is wrong.
pub fn check_target(target: &Path, inputs: &[&Path]) -> anyhow::Result<()> {
    let name = target.display();
    if target.as_os_str().is_empty() {
        bail!("the output file name is empty");
    }
    if let Ok(meta) = std::fs::metadata(target) {
        if meta.is_dir() {
            bail!("{name} is a directory; give a file name for the output");
        }
        for input in inputs {
            if input.as_os_str() != STANDARD_STREAM && same_file(target, input) {
                bail!(
                    "{name} is also an input ({}); refusing to overwrite it",
                    input.display()
                );
            }
        }
    }
    let dir = directory_of(target);
    if !dir.is_dir() {
        bail!(
            "cannot write {name}: the directory {} does not exist",
            dir.display()
        );
    }
    Ok(())
}

/// Whether `a` and `b` name the same file (device and inode).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

fn directory_of(target: &Path) -> &Path {
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// A new temporary file `.NAME.XXXXXX.partial` in the target's directory
/// (the same file system, so the final rename is atomic).
fn temp_beside(target: &Path) -> anyhow::Result<tempfile::NamedTempFile> {
    let dir = directory_of(target);
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    // The finished file gets the target's permissions, or a new file's
    // (0666 less the umask) rather than a temporary file's 0600.
    let permissions = match std::fs::metadata(target) {
        Ok(meta) => meta.permissions(),
        Err(_) => std::fs::Permissions::from_mode(0o666),
    };
    tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".partial")
        .permissions(permissions)
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "cannot write {}: creating a file in {} failed",
                target.display(),
                dir.display()
            )
        })
}

/// What the signal handler does with the output being written: rename it
/// to `NAME.partial` and exit. Only async-signal-safe calls (`rename`,
/// `write`, `_exit`) run in the handler; the names are prepared beforehand.
mod interrupt {
    use super::*;

    struct Pending {
        from: CString,
        to: CString,
    }

    /// The output a signal keeps; null when none is being written.
    static PENDING: AtomicPtr<Pending> = AtomicPtr::new(std::ptr::null_mut());

    /// Installs the handlers for SIGINT, SIGTERM and SIGHUP, and makes a
    /// write past `ulimit -f` an error (EFBIG) instead of a SIGXFSZ kill.
    pub fn install() {
        let handler = on_signal as extern "C" fn(libc::c_int);
        // SAFETY: the handler only calls async-signal-safe functions.
        unsafe {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(signal, handler as libc::sighandler_t);
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        }
    }

    pub fn watch(from: &Path, to: &Path) {
        let cstr = |p: &Path| CString::new(p.as_os_str().as_bytes()).ok();
        let (Some(from), Some(to)) = (cstr(from), cstr(to)) else {
            return;
        };
        let new = Box::into_raw(Box::new(Pending { from, to }));
        let old = PENDING.swap(new, Ordering::SeqCst);
        if !old.is_null() {
            // SAFETY: every non-null pointer came from Box::into_raw above.
            drop(unsafe { Box::from_raw(old) });
        }
    }

    pub fn unwatch() {
        let old = PENDING.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !old.is_null() {
            // SAFETY: as in `watch`; the handler exits the process, so it
            // never holds the pointer while this runs on another thread
            // past the swap.
            drop(unsafe { Box::from_raw(old) });
        }
    }

    extern "C" fn on_signal(signal: libc::c_int) {
        let pending = PENDING.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: async-signal-safe calls on names prepared in `watch`.
        unsafe {
            let say = |text: &[u8]| {
                libc::write(2, text.as_ptr().cast(), text.len());
            };
            say(b"\nwarpsw: interrupted");
            if !pending.is_null() {
                let p = &*pending;
                if libc::rename(p.from.as_ptr(), p.to.as_ptr()) == 0 {
                    say(b"; the finished part is kept in ");
                    say(p.to.as_bytes());
                }
            }
            say(b"\n");
            libc::_exit(128 + signal);
        }
    }
}

pub use interrupt::install as install_signal_handlers;

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails once `room` bytes are written, as a full disk.
    struct FullAfter {
        inner: OutputFile,
        room: usize,
    }

    impl Write for FullAfter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if buf.len() > self.room {
                return Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    "no space left on device",
                ));
            }
            self.room -= buf.len();
            self.inner.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A new temporary directory, the path of its `out.tsv` and that file
    /// opened (not yet written).
    fn new_out_tsv() -> (tempfile::TempDir, std::path::PathBuf, OutputFile) {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.tsv");
        let out = OutputFile::create(&target, &[]).unwrap();
        (dir, target, out)
    }

    #[test]
    fn a_failed_write_leaves_the_target_untouched_and_no_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.tsv");
        std::fs::write(&target, "old contents\n").unwrap();
        let mut out = FullAfter {
            inner: OutputFile::create(&target, &[]).unwrap(),
            room: 100,
        };
        let result = (0..1000).try_for_each(|i| writeln!(out, "line {i}"));
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::StorageFull);
        drop(out);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old contents\n");
        assert_eq!(entries(dir.path()), ["out.tsv"]);
    }

    #[test]
    fn commit_renames_and_nothing_is_visible_before() {
        let (dir, target, mut out) = new_out_tsv();
        writeln!(out, "a\tb").unwrap();
        out.checkpoint().unwrap();
        assert!(!target.exists());
        let names = entries(dir.path());
        assert_eq!(names.len(), 1);
        assert!(names[0].starts_with(".out.tsv.") && names[0].ends_with(".partial"));
        out.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "a\tb\n");
        // A new file's permissions, not a temporary file's 0600.
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        // SAFETY: reads the umask back at once (set and restored).
        let umask = unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m
        };
        assert_eq!(mode, 0o666 & !umask);
        assert_eq!(entries(dir.path()), ["out.tsv"]);
    }

    #[test]
    fn keep_partial_names_the_file_incomplete() {
        let (dir, target, mut out) = new_out_tsv();
        writeln!(out, "done").unwrap();
        let kept = out.keep_partial().unwrap();
        assert_eq!(kept, dir.path().join("out.tsv.partial"));
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "done\n");
        assert!(!target.exists());
    }

    #[test]
    fn gz_targets_are_compressed_and_append_adds_a_member() {
        use std::io::Read;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv.gz");
        for line in ["one", "two"] {
            let mut out = OutputFile::append(&target, &[]).unwrap();
            writeln!(out, "{line}").unwrap();
            out.commit().unwrap();
        }
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(File::open(&target).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "one\ntwo\n");
    }

    #[test]
    fn inputs_directories_and_missing_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.fa");
        std::fs::write(&input, ">a\nM\n").unwrap();
        let same = dir.path().join(".").join("in.fa");
        let err = OutputFile::create(&same, &[&input]).err().unwrap();
        assert!(err.to_string().contains("is also an input"), "{err}");
        let err = OutputFile::create(dir.path(), &[]).err().unwrap();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let err = OutputFile::create(&dir.path().join("no/such/x.tsv"), &[])
            .err()
            .unwrap();
        assert!(err.to_string().contains("does not exist"), "{err}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), ">a\nM\n");
    }
}
