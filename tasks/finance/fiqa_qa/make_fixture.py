#!/usr/bin/env python
"""Write the synthetic FiQA fixture ``fixture/`` in the BEIR folder format.

Files as the BeIR/fiqa + BeIR/fiqa-qrels repos provide them (decompressed): ``corpus.jsonl`` (``_id``, ``title``,
``text``), ``queries.jsonl`` (``_id``, ``text``), ``qrels/test.tsv`` and ``qrels/train.tsv`` (``query-id``,
``corpus-id``, ``score``), plus ``MANIFEST.json``. The 42 answers and 7 questions are invented for
lm-eval-enterprise (nothing copied from FiQA). Test query 8 has 12 relevant documents listed out of id order, so
the 10-relevant cap and the numeric id order are exercised. Deterministic.

    .venv/bin/python tasks/finance/fiqa_qa/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

docs = {
    # start investing (test q 8) -- 12 relevant
    "2": "Start with a low-cost index fund. Many brokers let you open an account with no minimum and buy fractional shares, so even fifty dollars a month gets you diversified exposure to the whole market.",
    "5": "Before you invest a single dollar, build an emergency fund of three to six months of expenses. Once that is in place, automate a small monthly transfer into a broad market ETF.",
    "9": "If your employer offers a retirement plan with a match, contribute enough to get the full match first. That is an instant return you will not beat anywhere else, even with a small amount.",
    "10": "Pay off high-interest credit card debt first; it costs more than the market is likely to return. After that, small regular purchases of a total market fund are a sensible way to start.",
    "14": "Robo-advisors are a reasonable first step for beginners with little money. They pick a diversified portfolio for you, rebalance automatically and charge a small annual fee.",
    "17": "Do not try to pick individual stocks with a few hundred dollars. Fees and lack of diversification work against you. A single target-date fund keeps things simple.",
    "21": "Dollar-cost averaging is ideal when you are starting small: invest the same amount every payday regardless of price, and you will buy more shares when prices are low.",
    "26": "Open a Roth IRA and put a small amount in every month. The contributions grow tax free, and you can withdraw what you contributed if you really need to.",
    "30": "Read one good book on index investing before you start, then choose a fund with an expense ratio below 0.1 percent. Small amounts are fine; consistency matters more than size.",
    "33": "Check the account fees carefully. With a small balance, a flat ten dollar monthly fee can eat most of your returns, so look for brokers with no account minimums and no fees.",
    "37": "Treat your first investments as a learning experience. Put a small sum into a diversified fund, watch how it moves, and add to it as your income grows.",
    "41": "Micro-investing apps round up your card purchases and invest the spare change. It is a painless way to start, although the fees can be high relative to tiny balances.",
    # mortgage vs invest (test q 15) -- 2 relevant
    "44": "Paying off a mortgage early gives you a guaranteed return equal to your interest rate. If your rate is 3 percent, investing will probably earn more over time, but paying down debt carries no risk.",
    "47": "It depends on your mortgage rate and your tolerance for risk. Many people split the difference: they make one extra payment a year and invest the rest in index funds.",
    # 401k job change (test q 23) -- 1 relevant
    "50": "When you leave a job your 401k stays yours. You can leave it in the old plan, roll it into your new employer's plan, or roll it into an IRA without paying tax if you do a direct rollover.",
    # train relevant
    "53": "Existing bonds pay a fixed coupon. When new bonds are issued at higher rates, nobody will pay full price for your lower-coupon bond, so its market price drops until its yield matches the market.",
    "56": "Using a credit card for small purchases and paying the statement in full every month is one of the easiest ways to build a credit history without paying any interest.",
    "58": "A secured credit card works well if you have no history. You deposit a few hundred dollars as collateral and use the card like any other; after a year you can usually upgrade.",
    "61": "With a traditional IRA you deduct contributions now and pay income tax on withdrawals. With a Roth IRA you contribute after-tax money and qualified withdrawals in retirement are tax free.",
    "64": "Qualified dividends are taxed at the lower long-term capital gains rates, while ordinary dividends are taxed as regular income. Your broker reports both on form 1099-DIV.",
    # distractors
    "66": "Inflation reduces the purchasing power of cash. Over long periods stocks have historically outpaced inflation, while savings accounts often have not.",
    "69": "A stock split does not change the value of your holding. You get more shares, each worth proportionally less, and the company's market value stays the same.",
    "72": "Exchange-traded funds trade during the day like stocks, while mutual funds are priced once at the close. For long-term investors the difference rarely matters.",
    "75": "Employee stock options give you the right to buy company shares at a fixed strike price. They are only valuable if the share price rises above that strike.",
    "78": "A budget is simply a plan for your money. List your income, subtract fixed costs, and decide in advance how much goes to savings, spending and debt repayment.",
    "81": "Short selling means borrowing shares, selling them, and buying them back later. If the price rises instead of falls, your potential loss is unlimited.",
    "84": "Term life insurance is cheap and covers you for a set period. Whole life insurance costs much more and bundles a savings component with high fees.",
    "87": "The price to earnings ratio compares a company's share price with its profit per share. A high ratio can mean investors expect strong growth, or that the stock is expensive.",
    "90": "Leasing a car usually costs more over time than buying one and keeping it for many years, but it gives you lower monthly payments and a new car every few years.",
    "93": "Currency exchange fees at airports are notoriously high. Withdrawing local cash from an ATM with a no-foreign-fee debit card is usually cheaper.",
    "96": "A limit order lets you set the maximum price you will pay for a stock. A market order fills immediately at whatever price is available.",
    "99": "Capital losses can offset capital gains, and up to three thousand dollars of net losses per year can be deducted against ordinary income.",
    "102": "Gold pays no dividends or interest. People hold it as a hedge against currency debasement, but its long-run real return has been modest.",
    "105": "If you receive a windfall, park it in a high-yield savings account while you decide what to do. There is no rush to make big decisions.",
    "108": "A company's free cash flow is the cash left after capital expenditures. Analysts watch it because profits can be managed but cash is harder to fake.",
    "111": "Health savings accounts are triple tax advantaged: contributions are deductible, growth is untaxed, and withdrawals for medical costs are tax free.",
    "114": "Renting is not throwing money away. Owners pay interest, property tax, insurance and maintenance, which can add up to more than rent.",
    "117": "Penny stocks are thinly traded and easy to manipulate. Pump-and-dump schemes often target them through social media hype.",
    "120": "A credit freeze stops new accounts from being opened in your name. It is free and does not affect your credit score.",
    "123": "Annual percentage yield includes the effect of compounding, while the stated interest rate does not. Compare savings accounts by APY.",
    "126": "Market capitalisation is the share price times the number of shares outstanding. It tells you how much the market values the whole company.",
    "129": "Index funds that track the same index can still differ in tracking error, fees and securities lending income, so compare them before choosing.",
}
queries = {
    "8": "How should I start investing with only a small amount of money?",
    "15": "Is it better to pay off my mortgage early or invest the money?",
    "23": "What happens to my 401k when I change jobs?",
    "201": "Why do bond prices fall when interest rates rise?",
    "202": "Can I use a credit card to build a credit history?",
    "203": "What is the difference between a Roth IRA and a traditional IRA?",
    "204": "How are stock dividends taxed?",
}
test = {"8": ["41", "2", "5", "9", "10", "14", "17", "21", "26", "30", "33", "37"], "15": ["47", "44"], "23": ["50"]}
train = {"201": ["53"], "202": ["58", "56"], "203": ["61"], "204": ["64"]}


def write(out: Path) -> None:
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w") as f:
        for k, v in docs.items():
            f.write(json.dumps({"_id": k, "title": "", "text": v}) + "\n")
    with open(out / "queries.jsonl", "w") as f:
        for k, v in queries.items():
            f.write(json.dumps({"_id": k, "text": v}) + "\n")
    for name, q in (("test", test), ("train", train)):
        with open(out / "qrels" / f"{name}.tsv", "w") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            for qid, ds in q.items():
                for d in ds:
                    f.write(f"{qid}\t{d}\t1\n")
    write_manifest(
        out,
        "fiqa_qa",
        "Synthetic finance Q&A written for lm-eval-enterprise (not from the real data), in "
        "the BEIR folder format of BeIR/fiqa + BeIR/fiqa-qrels (corpus.jsonl, queries.jsonl, "
        "qrels/{test,train}.tsv). Rows = queries: 3 test queries (one with 12 relevant documents, to "
        "exercise the 10-relevant cap) x 20 candidates = 60 pair docs; 4 train queries = 8 few-shot pairs. "
        "Generated by tasks/finance/fiqa_qa/make_fixture.py.",
        {"test": len(test), "train": len(train)},
    )
    print(f"{len(docs)} documents, {len(queries)} queries")


if __name__ == "__main__":
    generator_main(write)
