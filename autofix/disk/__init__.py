"""Every read and write of a file or a stream (besides ``cli.main``'s own exit paths).

Reading is bounded (regular files only, at most ``limits.MAX_BYTES``); a write refuses a path that leads to
another file than the one read under it, a file that changed since it was read or that is write-protected, and
keeps what makes the file the same file (its hard links, mode, owner and extended attributes).

- ``files``: what one run reads and writes (``FileSet``: each file read, then written only while unchanged; the
  files of one launch all or none), signals held during a write (``SignalsHeld``), the step summary appended to;
- ``reads``: one file or stdin read once, bounded; why a file was not read; the ``Snapshot`` of what was read;
- ``encoding``: the text a file's bytes hold (UTF-8, else the UTF-16 or UTF-32 form they are in);
- ``paths``: paths as the system resolves them (``normalize``, ``plain``), the repository a path is in;
- ``scope``: the project one run may read in (``Scope``);
- ``walk``: the inputs walked for the files to check (``expand``);
- ``writes``: replacing a file with its fixed text atomically, or not at all (``Target``), imported by the first
  write; ``syscalls``: the system calls it makes besides ``os``'s own;
- ``backups``: what a write leaves next to a file while it runs (or for good, interrupted), and what a run says
  of one.

May import: ``autofix.common`` (what a file's name says it is: ``common.filenames``).
"""
