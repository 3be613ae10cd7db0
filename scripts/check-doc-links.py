#!/usr/bin/env python3
"""Checks that every local link in the given Markdown files resolves: the file or folder exists
and a #fragment names a heading of the target (GitHub's anchor rule). Web links are not fetched.
  scripts/check-doc-links.py README.md docs/*.md      (exit 1 and one line per broken link)"""
import os
import re
import sys

LINK = re.compile(r'(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def strip_code(text):
    """Removes fenced blocks and inline code, where brackets are not links."""
    text = re.sub(r'^```.*?^```', '', text, flags=re.S | re.M)
    return re.sub(r'`[^`\n]*`', '', text)


def anchors(path):
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to '-', repeats numbered."""
    seen, result, fence = {}, set(), False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
        match = None if fence else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not match:
            continue
        slug = re.sub(r'[^\w\- ]', '', match.group(1).lower()).replace(' ', '-')
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f'{slug}-{count}')
    return result


def main(files):
    broken = 0
    for source in files:
        text = strip_code(open(source, encoding='utf-8').read())
        for target in LINK.findall(text):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                continue
            path, _, fragment = target.partition('#')
            resolved = os.path.normpath(os.path.join(os.path.dirname(source), path)) if path else source
            if not os.path.exists(resolved):
                print(f'{source}: {target}: no such file {resolved}')
                broken += 1
            elif fragment and resolved.endswith('.md') and fragment not in anchors(resolved):
                print(f'{source}: {target}: no heading #{fragment} in {resolved}')
                broken += 1
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
