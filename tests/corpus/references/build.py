"""Builds references.jsonl, the labelled reference set (see README.md):

    python3 build.py <grobid checkout> <anystyle checkout> references.jsonl

from GROBID's citation training corpus and AnyStyle's parser training data, at the commits
the README names. Each reference's text is its annotated sequence with the tags taken off;
its DOIs are those its source annotates (a DOI element, or a URL that holds one), corrected
by hand where the annotation took in a word after the DOI or missed one (listed below).
"""
import glob, json, re, sys, hashlib, subprocess, collections
import xml.etree.ElementTree as ET

GROBID, ANYSTYLE, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
# The commits the set was built from (git checkouts or bare mirrors of either will do).
GROBID_COMMIT = 'b8d6bec302189e29a6c358ea513f8be834004a86'
ANYSTYLE_COMMIT = 'c6f5fb2fa6e8ce9456ad1e1e88d6bba5f3d7731d'

TEI = '{http://www.tei-c.org/ns/1.0}'

def ws(s):
    return re.sub(r'\s+', ' ', s).strip()

def grobid():
    corpus = 'grobid-trainer/resources/dataset/citation/corpus'
    names = subprocess.run(['git', '-C', GROBID, 'ls-tree', '--name-only', '-z', GROBID_COMMIT, corpus + '/'],
                           capture_output=True, check=True).stdout.decode().split('\0')
    for path in sorted(n for n in names if n):
        name = path.rsplit('/', 1)[1]
        xml = subprocess.run(['git', '-C', GROBID, 'show', GROBID_COMMIT + ':' + path], capture_output=True, check=True).stdout
        root = ET.fromstring(xml)
        for k, b in enumerate(root.iter(TEI + 'bibl')):
            text = ws(''.join(b.itertext()))
            dois, urls = [], []
            for e in b.iter():
                tag = e.tag.replace(TEI, '')
                t = (e.get('type') or '').lower()
                if tag == 'idno' and t == 'doi':
                    dois.append(ws(''.join(e.itertext())))
                elif tag == 'ptr':
                    urls.append(ws(''.join(e.itertext())))
            yield {'source': 'grobid', 'doc': name, 'text': text, 'doi_ann': dois, 'url_ann': urls}

def anystyle():
    for name in ['core', 'gold', 'good', 'bad', 'ugly']:
        xml = subprocess.run(['git', '-C', ANYSTYLE, 'show', f'{ANYSTYLE_COMMIT}:res/parser/{name}.xml'],
                             capture_output=True, check=True).stdout
        root = ET.fromstring(xml)
        for k, seq in enumerate(root.iter('sequence')):
            parts = [ws(''.join(c.itertext())) for c in seq]
            text = ws(' '.join(p for p in parts if p))
            dois = [ws(''.join(c.itertext())) for c in seq if c.tag == 'doi']
            urls = [ws(''.join(c.itertext())) for c in seq if c.tag == 'url']
            yield {'source': 'anystyle', 'doc': name + '.xml', 'text': text, 'doi_ann': dois, 'url_ann': urls}

DOI_IN = re.compile(r'10\.\d+(?:\.\d+)*/')

def normalize(ann, url):
    """The DOI an annotation holds: white space out (PDF text splits DOIs, no DOI holds
    one), from its `10.` on, without what follows it in a URL (query, fragment) and without
    sentence punctuation or a closing bracket with no partner at its end."""
    s = re.sub(r'\s+', '', ann)
    m = DOI_IN.search(s)
    if not m:
        return None
    s = s[m.start():]
    if url:
        s = re.split(r'[?#]', s)[0]
    while True:
        t = s
        if s and s[-1] in '.,;:':
            s = s[:-1]
        for o, c in ['()', '[]', '{}', '<>']:
            if s.endswith(c) and s.count(c) > s.count(o):
                s = s[:-1]
        if s == t:
            break
    return s

rows = []
seen = set()
for r in list(grobid()) + list(anystyle()):
    if r['text'] in seen:
        continue
    seen.add(r['text'])
    dois = []
    for a in r['doi_ann']:
        d = normalize(a, False)
        if d: dois.append(d)
        else: print('no doi in annotation', repr(a), file=sys.stderr)
    for u in r['url_ann']:
        d = normalize(u, True)
        if d and d.lower() not in [x.lower() for x in dois]:
            dois.append(d)
    r['dois'] = dois
    rows.append(r)

# Hand corrections of the sources' annotations (each checked against the reference text):
# a word the annotation took in after the DOI, or a DOI the annotation missed.
fix = {
    '10.1103/PhysRevD.11.395.URL': '10.1103/PhysRevD.11.395',
    '10.1038/s41560-017-0067-y(2018': '10.1038/s41560-017-0067-y',
    '10.1021/acs.jpclett.8b02408(2018': '10.1021/acs.jpclett.8b02408',
    '10.1038/ejhg.2010.129.Epub': '10.1038/ejhg.2010.129',
    '10.1007/s11999-014-3568-z.Epub': '10.1007/s11999-014-3568-z',
    '10.1080/08120099.2012.736406[PDF]': '10.1080/08120099.2012.736406',
    # A publisher's URL: its last segment names a view of the article, not part of the DOI.
    '10.1002/huon.200900007/pdf': '10.1002/huon.200900007',
    '10.1111/ajo.12056/full': '10.1111/ajo.12056',
}
# DOIs the text holds broken, so that no reading of it is the DOI: left out, with the
# reference (`2016 3` for `2016-3`, a lost `)`, `j. comp struct`).
broken = {'10.2305/IUCN.UK.20163.RLTS.T62120280A95189182.en', '10.1061/(asce)0733-9399(1984)110:5(794', '10.1016/j.compstruct'}
missed = {  # text fragment -> DOI the annotation missed
    'doi: 10. 5194/npg-21-379-2014': '10.5194/npg-21-379-2014',
    'doi: 10.1080/02640414.2013.865253': '10.1080/02640414.2013.865253',
    'doi: 10.1093/jac/dkv465': '10.1093/jac/dkv465',
    'doi.org/10.3389/fevo.2015.00067': '10.3389/fevo.2015.00067',
    '[doi>10.1145/2556288.2557383]': '10.1145/2556288.2557383',
    '(doi:10.1021/es405557p)': '10.1021/es405557p',
    'DOI 10.1520/F2927-12.': '10.1520/F2927-12',
    'DOI : 10.3917/her.126.0003': '10.3917/her.126.0003',
    '[doi>10.1109/ISPA.2008.33]': '10.1109/ISPA.2008.33',
    'http://dx.doi.org/10.5334%2Fjcms.7011': '10.5334/jcms.7011',
}
out = []
used = set()
for r in rows:
    dois = [fix.get(d, d) for d in r['dois']]
    if any(d in broken for d in dois):
        continue
    for frag, d in missed.items():
        if frag in r['text'] and d not in dois:
            dois.append(d); used.add(frag)
    t = r['text']
    if not re.search(r'10|doi|hdl', t, re.I):
        continue
    h = int(hashlib.sha256(t.encode()).hexdigest(), 16)
    part = 'held-out' if h % 5 < 2 else 'tune'
    out.append({'source': r['source'], 'doc': r['doc'], 'part': part, 'text': t, 'dois': dois})
assert used == set(missed), set(missed) - used
with open(OUT, 'w') as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + '\n')
c = collections.Counter((o['source'], o['part']) for o in out)
print(len(out), 'references kept of', len(rows), sum(len(o['dois']) for o in out), 'DOIs', c, file=sys.stderr)
for p in ['tune','held-out']:
    print(p, sum(1 for o in out if o['part']==p), sum(len(o['dois']) for o in out if o['part']==p), file=sys.stderr)
