# Prints, for every code object of a sample module compiled by the running interpreter, its
# co_linetable and the line CPython gives each instruction (co_lines()), so that Stackfold's
# location-table decoder can be checked against CPython itself. Output, one code object a line:
#   qualname firstlineno linetable-hex line,line,... (one line per code unit; 0 for no line)
import sys

SAMPLE = '''
import os

def simple(a, b):
    return a + b

def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        elif i % 5 == 0:
            total -= (
                i
                * 2
            )
        else:
            continue
    while total > 100:
        total //= 2
    return total

class Box:
    def method(self, x):
        try:
            return [y * 2 for y in range(x) if y]
        except (ValueError, TypeError) as e:
            raise RuntimeError("no") from e
        finally:
            self.done = True

    @property
    def value(self):
        return {k: v for k, v in os.environ.items()}

def far():
    x = 1
''' + '\n' * 200 + '''    y = x + 1
''' + '\n' * 9000 + '''    return (lambda z: z + y)(x)

async def coro():
    async with open_it() as f:
        await f.read()
    yield_ = [a async for a in agen()]
    return yield_

def gen():
    yield from range(3)
    yield 4
'''


def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, 'co_code'):
            yield from walk(c)


top = compile(SAMPLE, 'sample.py', 'exec')
for code in walk(top):
    units = len(code.co_code) // 2
    lines = [0] * units
    for start, end, line in code.co_lines():
        for u in range(start // 2, end // 2):
            if u < units:
                lines[u] = line if line is not None else 0
    print(code.co_qualname, code.co_firstlineno, code.co_linetable.hex() or '-', ','.join(map(str, lines)))
print('ready', sys.version_info[:2])
