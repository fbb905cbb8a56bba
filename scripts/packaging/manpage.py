#!/usr/bin/env python3
"""Write gpuready's man page (gpuready.1.gz) from the built executable's own help, so the page lists exactly the
subcommands and options of that build:

  scripts/packaging/manpage.py GPUREADY VERSION OUT.1.gz

`GPUREADY --help` gives the subcommands; `GPUREADY <sub> --help` each one's usage, positionals and options (CLI11's
layout: a section title ending in ':', then one entry per line, its name and its description separated by two or more
spaces). The date is SOURCE_DATE_EPOCH's day where set (reproducible packages), else today, UTC.
"""
import datetime
import gzip
import os
import re
import subprocess
import sys


def run_help(binary, *args):
    p = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        sys.exit(f"manpage.py: `{binary} {' '.join(args)} --help` exited {p.returncode}: {p.stderr[:300]}")
    return p.stdout.replace(binary, "gpuready")


def roff(text):
    """Text as roff reads it: backslashes escaped, hyphens as \\-, no line starting with a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def sections(help_text):
    """CLI11's help as (title, lines): the description first (title ''), then 'Usage', 'Options', ..."""
    out, title, lines = [], "", []
    for line in help_text.splitlines():
        m = re.match(r"^(Usage):(.*)$", line) or re.match(r"^([A-Z][A-Za-z ]*):()$", line)
        if m:
            out.append((title, lines))
            title, lines = m.group(1), ([m.group(2).strip()] if m.group(2).strip() else [])
        elif line.strip():
            lines.append(line)
    out.append((title, lines))
    return out


def entries(lines):
    """'  -o,--output FILE    Write it here' -> ('-o,--output FILE', 'Write it here'); a line that continues the
    description before it (indented deeper, no name column) is joined to it."""
    out = []
    for line in lines:
        m = re.match(r"^\s+(\S.*?)(?:\s{2,}(\S.*))?$", line)
        if not m:
            continue
        if out and line.startswith(" " * 20) and not m.group(2):
            out[-1] = (out[-1][0], (out[-1][1] + " " + m.group(1)).strip())
        else:
            out.append((m.group(1), m.group(2) or ""))
    return out


def command_section(help_text, name, describe=True):
    body = []
    for title, lines in sections(help_text):
        if title == "":
            if lines and describe:
                body.append(".PP\n" + roff(" ".join(l.strip() for l in lines)))
        elif title == "Usage":
            body.append(".PP\n.B Usage:\n" + roff(" ".join(lines)))
        elif title == "Subcommands":
            continue  # the top level's list: each has a section of its own
        else:
            body.append(f".PP\n.I {roff(title)}")
            for left, desc in entries(lines):
                body.append(f".TP\n.B {roff(left)}\n{roff(desc)}")
    return f'.SH "{roff(name.upper())}"\n' + "\n".join(body) if name else "\n".join(body)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, version, out = sys.argv[1], sys.argv[2], sys.argv[3]
    top = run_help(binary)
    subs = [left.split()[0] for title, lines in sections(top) if title == "Subcommands" for left, _ in entries(lines)]
    if not subs:
        sys.exit("manpage.py: `gpuready --help` listed no subcommands")
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    day = datetime.datetime.fromtimestamp(int(epoch) if epoch else datetime.datetime.now().timestamp(),
                                          datetime.timezone.utc).strftime("%Y-%m-%d")
    summary = sections(top)[0][1][0].split(": ", 1)[-1] if sections(top)[0][1] else ""
    page = [
        f'.TH GPUREADY 1 "{day}" "gpuready {roff(version)}" "User Commands"',
        ".SH NAME",
        f"gpuready \\- {roff(summary)}",
        ".SH SYNOPSIS",
        ".B gpuready\n[\\fIOPTIONS\\fR] [\\fICOMMAND\\fR] [\\fICOMMAND OPTIONS\\fR]",
        ".SH DESCRIPTION",
        roff("Without a command gpuready runs the doctor: is this machine ready for GPU deep learning, the findings "
             "in order with their evidence and exact fixes. Each command below has its own options; "
             "`gpuready COMMAND --help` prints them."),
        command_section(top, "", describe=False),
        ".SH COMMANDS",
    ]
    for s in subs:
        page.append(f'.SS "gpuready {roff(s)}"')
        page.append(command_section(run_help(binary, s), ""))
    page += [
        ".SH EXIT STATUS",
        roff("0: ready, or the command succeeded; 1: problems found (doctor), nothing recognised (explain), a check "
             "failed (verify); 2: bad flags or unreadable input; 130: stopped by Ctrl-C."),
        ".SH FILES",
        ".TP\n.I /usr/lib/gpuready/libgpuready\\-cuda.so\n" +
        roff("The CUDA module (verify's GPU checks, bench's GPU engine), looked for beside the executable, then in "
             "../lib/gpuready/ from it; $GPUREADY_CUDA_MODULE names another file."),
        ".TP\n.I /usr/lib/gpuready/libgpuready\\-cpu.so\n" +
        roff("The CPU training engine of bench (needs oneDNN); $GPUREADY_CPU_MODULE names another file."),
        ".SH SEE ALSO",
        roff("nvidia-smi(1); `gpuready completion bash|zsh` prints a shell completion script."),
    ]
    text = "\n".join(p for p in page if p) + "\n"
    with open(out, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as g:
            g.write(text.encode())


if __name__ == "__main__":
    main()
