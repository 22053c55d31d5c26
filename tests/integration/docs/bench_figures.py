"""Every figure a doc quotes from a benchmark is the committed result's.

A paragraph (or list item) of docs/*.md or README.md that cites
bench/results/NAME.md may quote figures (a number with a unit: ms, us, ns,
s, MB, %, requests per second, ...); each must appear, as a number, in the
result files that paragraph cites. Prints one line per figure that does
not, or per cited file that does not exist; exits 1 then.
usage: bench_figures.py ROOT
"""
import re,sys,os,glob
root=sys.argv[1]
unit=r'(?:ms|µs|us|ns|s|MB|GB|KB|%|/s|requests per second|requests/s)'
bad=0
for f in sorted(glob.glob(root+'/docs/*.md'))+glob.glob(root+'/README.md'):
    text=open(f).read()
    paras=re.split(r'\n\s*\n|\n(?=\s*[-*] )', text)
    for p in paras:
        cites=sorted(set(re.findall(r'bench/results/([a-z0-9_-]+)\.md', p)))
        if not cites: continue
        body=''
        for c in cites:
            x=root+'/bench/results/'+c+'.md'
            if not os.path.exists(x):
                print(f'{os.path.basename(f)}: cites bench/results/{c}.md, which does not exist'); bad+=1
            else: body+=open(x).read().replace(',','')+'\n'
        for n in re.findall(r'(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*'+unit+r'(?![\w])', p):
            v=n.replace(',','')
            if not re.search(r'(?<![\d.])'+re.escape(v)+r'(?![\d])', body):
                print(f'{os.path.basename(f)}: {n} is not in bench/results/{"|".join(cites)}.md: '+' '.join(p.split())[:120]); bad+=1
sys.exit(1 if bad else 0)
