#!/usr/bin/env python
"""Write the synthetic FiNER-139 fixture ``fixture/`` in both published layouts.

1. As published on the hub's main branch of ``nlpaueb/finer-139``: ``finer139.zip`` holding ``train.jsonl``,
   ``validation.jsonl`` and ``test.jsonl`` at the archive root — one JSON object per line,
   ``{"id": <int>, "tokens": [...], "ner_tags": ["O", "B-<XbrlTag>", ...]}`` with the tags as IOB2 **strings** —
   plus ``dataset_infos.json`` beside it (``{"finer-139": {"features": ..., "splits": ...}}`` in the
   ``datasets`` 2.x serialisation: ``ner_tags`` a ``Sequence`` of a ``ClassLabel`` with the 279 names below, and
   each split's ``num_examples``).
2. The hub's auto-converted parquet files (revision ``refs/convert/parquet``, config folder ``finer-139``):
   ``finer-139/{train,test}/0000.parquet`` with columns ``id`` (string), ``tokens`` (list of strings),
   ``ner_tags`` (list of ClassLabel ids over the 279 IOB2 labels), written with ``datasets`` so that, as on the
   hub, the ClassLabel names are stored in each file's ``huggingface`` schema metadata (the loader also accepts a
   ``label_names.json`` or ``dataset_infos.json`` beside the files, for copies without that metadata).

Both layouts hold the same sentences, so they must give the same records. The sentences and figures are
invented for lm-eval-enterprise (nothing copied from FiNER-139). The train tag counts are chosen so that the
top-10 reduction is deterministic and exercises every rule: two ties broken by name
(DebtInstrumentBasisSpreadOnVariableRate1 before LineOfCreditFacilityMaximumBorrowingCapacity at 5 spans;
Goodwill in and Revenues out at 2 spans), a multi-token span (B + I), an I- tag without B- (a span of its own),
sentences without kept entities (dropped) and a type removed from a kept sentence. Test ids cross a digit
boundary (95..108) so sorting by id must be numeric. Deterministic (fixed zip timestamps).

    .venv/bin/python tasks/finance/finer139/make_fixture.py [--out DIR]
"""

import json
import zipfile
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

CONFIG = "finer-139"  # the parquet layout's config folder

# ClassLabel names of ner_tags (O, then B-/I- of the 139 XBRL tags; the hub's label inventory)
LABEL_NAMES = """
O B-AccrualForEnvironmentalLossContingencies B-AcquiredFiniteLivedIntangibleAssetsWeightedAverageUsefulLife
I-AcquiredFiniteLivedIntangibleAssetsWeightedAverageUsefulLife B-AllocatedShareBasedCompensationExpense
B-AmortizationOfFinancingCosts B-AmortizationOfIntangibleAssets I-AmortizationOfIntangibleAssets
B-AntidilutiveSecuritiesExcludedFromComputationOfEarningsPerShareAmount
I-AntidilutiveSecuritiesExcludedFromComputationOfEarningsPerShareAmount B-AreaOfRealEstateProperty
I-AreaOfRealEstateProperty B-AssetImpairmentCharges
B-BusinessAcquisitionEquityInterestsIssuedOrIssuableNumberOfSharesIssued
B-BusinessAcquisitionPercentageOfVotingInterestsAcquired I-BusinessAcquisitionPercentageOfVotingInterestsAcquired
B-BusinessCombinationAcquisitionRelatedCosts B-BusinessCombinationConsiderationTransferred1
B-BusinessCombinationContingentConsiderationLiability
B-BusinessCombinationRecognizedIdentifiableAssetsAcquiredAndLiabilitiesAssumedIntangibleAssetsOtherThanGoodwill
B-BusinessCombinationRecognizedIdentifiableAssetsAcquiredAndLiabilitiesAssumedIntangibles
B-CapitalizedContractCostAmortization B-CashAndCashEquivalentsFairValueDisclosure
B-ClassOfWarrantOrRightExercisePriceOfWarrantsOrRights1 B-CommonStockCapitalSharesReservedForFutureIssuance
B-CommonStockDividendsPerShareDeclared B-CommonStockParOrStatedValuePerShare B-CommonStockSharesAuthorized
I-CommonStockSharesAuthorized B-CommonStockSharesOutstanding B-ConcentrationRiskPercentage1
B-ContractWithCustomerLiability B-ContractWithCustomerLiabilityRevenueRecognized
B-CumulativeEffectOfNewAccountingPrincipleInPeriodOfAdoption B-DebtInstrumentBasisSpreadOnVariableRate1
B-DebtInstrumentCarryingAmount B-DebtInstrumentConvertibleConversionPrice1 B-DebtInstrumentFaceAmount
I-DebtInstrumentFaceAmount B-DebtInstrumentFairValue B-DebtInstrumentInterestRateEffectivePercentage
B-DebtInstrumentInterestRateStatedPercentage B-DebtInstrumentMaturityDate I-DebtInstrumentMaturityDate
B-DebtInstrumentRedemptionPricePercentage B-DebtInstrumentTerm I-DebtInstrumentTerm
B-DebtInstrumentUnamortizedDiscount B-DebtWeightedAverageInterestRate B-DeferredFinanceCostsGross
B-DeferredFinanceCostsNet B-DefinedBenefitPlanContributionsByEmployer B-DefinedContributionPlanCostRecognized
B-Depreciation B-DerivativeFixedInterestRate B-DerivativeNotionalAmount
B-DisposalGroupIncludingDiscontinuedOperationConsideration B-EffectiveIncomeTaxRateContinuingOperations
B-EffectiveIncomeTaxRateReconciliationAtFederalStatutoryIncomeTaxRate
B-EmployeeServiceShareBasedCompensationNonvestedAwardsTotalCompensationCostNotYetRecognized
B-EmployeeServiceShareBasedCompensationNonvestedAwardsTotalCompensationCostNotYetRecognizedPeriodForRecognition1
I-EmployeeServiceShareBasedCompensationNonvestedAwardsTotalCompensationCostNotYetRecognizedPeriodForRecognition1
B-EmployeeServiceShareBasedCompensationNonvestedAwardsTotalCompensationCostNotYetRecognizedShareBasedAwardsOtherThanOptions
B-EmployeeServiceShareBasedCompensationTaxBenefitFromCompensationExpense B-EquityMethodInvestmentOwnershipPercentage
I-EquityMethodInvestmentOwnershipPercentage B-EquityMethodInvestments B-FiniteLivedIntangibleAssetUsefulLife
I-FiniteLivedIntangibleAssetUsefulLife B-GainsLossesOnExtinguishmentOfDebt B-Goodwill B-GoodwillImpairmentLoss
B-GuaranteeObligationsMaximumExposure B-IncomeLossFromEquityMethodInvestments B-IncomeTaxExpenseBenefit
B-InterestExpense B-InterestExpenseDebt B-LeaseAndRentalExpense B-LesseeOperatingLeaseRenewalTerm
I-LesseeOperatingLeaseRenewalTerm B-LesseeOperatingLeaseTermOfContract I-LesseeOperatingLeaseTermOfContract
B-LettersOfCreditOutstandingAmount B-LineOfCredit B-LineOfCreditFacilityCommitmentFeePercentage
B-LineOfCreditFacilityCurrentBorrowingCapacity B-LineOfCreditFacilityInterestRateAtPeriodEnd
B-LineOfCreditFacilityMaximumBorrowingCapacity B-LineOfCreditFacilityRemainingBorrowingCapacity
B-LineOfCreditFacilityUnusedCapacityCommitmentFeePercentage B-LongTermDebt B-LongTermDebtFairValue
B-LossContingencyAccrualAtCarryingValue B-LossContingencyDamagesSoughtValue B-LossContingencyEstimateOfPossibleLoss
B-LossContingencyPendingClaimsNumber I-LossContingencyPendingClaimsNumber
B-MinorityInterestOwnershipPercentageByNoncontrollingOwners B-MinorityInterestOwnershipPercentageByParent
B-NumberOfOperatingSegments B-NumberOfRealEstateProperties I-NumberOfRealEstateProperties
B-NumberOfReportableSegments B-OperatingLeaseCost B-OperatingLeaseExpense B-OperatingLeaseLiability
B-OperatingLeasePayments B-OperatingLeaseRightOfUseAsset B-OperatingLeaseWeightedAverageDiscountRatePercent
B-OperatingLeaseWeightedAverageRemainingLeaseTerm1 I-OperatingLeaseWeightedAverageRemainingLeaseTerm1
B-OperatingLeasesRentExpenseNet B-OperatingLossCarryforwards B-PaymentsToAcquireBusinessesGross
B-PaymentsToAcquireBusinessesNetOfCashAcquired B-PreferredStockDividendRatePercentage
B-PreferredStockSharesAuthorized I-PreferredStockSharesAuthorized B-ProceedsFromIssuanceOfCommonStock
B-PropertyPlantAndEquipmentUsefulLife I-PropertyPlantAndEquipmentUsefulLife
B-PublicUtilitiesRequestedRateIncreaseDecreaseAmount B-RelatedPartyTransactionAmountsOfTransaction
I-RelatedPartyTransactionAmountsOfTransaction B-RelatedPartyTransactionExpensesFromTransactionsWithRelatedParty
I-RelatedPartyTransactionExpensesFromTransactionsWithRelatedParty B-RepaymentsOfDebt
B-RestructuringAndRelatedCostExpectedCost1 B-RestructuringCharges
B-RevenueFromContractWithCustomerExcludingAssessedTax B-RevenueFromContractWithCustomerIncludingAssessedTax
B-RevenueFromRelatedParties B-RevenueRemainingPerformanceObligation B-Revenues
B-SaleOfStockNumberOfSharesIssuedInTransaction I-SaleOfStockNumberOfSharesIssuedInTransaction
B-SaleOfStockPricePerShare B-ShareBasedCompensation
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardAwardVestingPeriod1
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardAwardVestingPeriod1
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsGrantsInPeriod
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsGrantsInPeriod
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsGrantsInPeriodWeightedAverageGrantDateFairValue
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsNonvestedNumber
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsVestedInPeriodTotalFairValue
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardNumberOfSharesAuthorized
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardNumberOfSharesAuthorized
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardNumberOfSharesAvailableForGrant
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardOptionsExercisesInPeriodTotalIntrinsicValue
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardOptionsGrantsInPeriodGross
B-ShareBasedCompensationArrangementByShareBasedPaymentAwardOptionsGrantsInPeriodWeightedAverageGrantDateFairValue
B-SharePrice B-SharebasedCompensationArrangementBySharebasedPaymentAwardAwardVestingRightsPercentage
I-SharebasedCompensationArrangementBySharebasedPaymentAwardAwardVestingRightsPercentage
B-SharebasedCompensationArrangementBySharebasedPaymentAwardExpirationPeriod
I-SharebasedCompensationArrangementBySharebasedPaymentAwardExpirationPeriod B-StockIssuedDuringPeriodSharesNewIssues
I-StockIssuedDuringPeriodSharesNewIssues B-StockRepurchaseProgramAuthorizedAmount1
B-StockRepurchaseProgramRemainingAuthorizedRepurchaseAmount1 B-StockRepurchasedAndRetiredDuringPeriodShares
B-StockRepurchasedDuringPeriodShares I-StockRepurchasedDuringPeriodShares
B-SupplementalInformationForPropertyCasualtyInsuranceUnderwritersPriorYearClaimsAndClaimsAdjustmentExpense
B-TreasuryStockAcquiredAverageCostPerShare B-TreasuryStockSharesAcquired I-TreasuryStockSharesAcquired
B-TreasuryStockValueAcquiredCostMethod B-UnrecognizedTaxBenefits
B-UnrecognizedTaxBenefitsThatWouldImpactEffectiveTaxRate I-DeferredFinanceCostsGross
I-CommonStockParOrStatedValuePerShare I-LossContingencyEstimateOfPossibleLoss
I-DefinedContributionPlanCostRecognized I-DebtInstrumentFairValue I-ContractWithCustomerLiabilityRevenueRecognized
I-RevenueRemainingPerformanceObligation
I-EmployeeServiceShareBasedCompensationNonvestedAwardsTotalCompensationCostNotYetRecognized
I-DebtInstrumentInterestRateStatedPercentage I-OperatingLossCarryforwards
I-MinorityInterestOwnershipPercentageByNoncontrollingOwners I-InterestExpense I-LongTermDebt
I-ShareBasedCompensation I-DebtWeightedAverageInterestRate I-DebtInstrumentCarryingAmount
I-DebtInstrumentConvertibleConversionPrice1 I-IncomeTaxExpenseBenefit
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardOptionsGrantsInPeriodWeightedAverageGrantDateFairValue
I-EmployeeServiceShareBasedCompensationNonvestedAwardsTotalCompensationCostNotYetRecognizedShareBasedAwardsOtherThanOptions
I-EquityMethodInvestments I-DebtInstrumentUnamortizedDiscount I-GainsLossesOnExtinguishmentOfDebt
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardNumberOfSharesAvailableForGrant
I-BusinessCombinationRecognizedIdentifiableAssetsAcquiredAndLiabilitiesAssumedIntangibleAssetsOtherThanGoodwill
I-PreferredStockDividendRatePercentage I-RevenueFromContractWithCustomerIncludingAssessedTax
I-OperatingLeaseWeightedAverageDiscountRatePercent I-LineOfCredit I-LineOfCreditFacilityMaximumBorrowingCapacity
I-EffectiveIncomeTaxRateReconciliationAtFederalStatutoryIncomeTaxRate I-LineOfCreditFacilityCommitmentFeePercentage
I-BusinessCombinationConsiderationTransferred1 I-CommonStockDividendsPerShareDeclared
I-DebtInstrumentBasisSpreadOnVariableRate1 I-DisposalGroupIncludingDiscontinuedOperationConsideration
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardOptionsGrantsInPeriodGross I-CommonStockSharesOutstanding
I-AmortizationOfFinancingCosts I-LineOfCreditFacilityCurrentBorrowingCapacity I-TreasuryStockValueAcquiredCostMethod
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsNonvestedNumber
I-DebtInstrumentInterestRateEffectivePercentage I-SaleOfStockPricePerShare I-CapitalizedContractCostAmortization
I-RestructuringCharges
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsVestedInPeriodTotalFairValue
I-AccrualForEnvironmentalLossContingencies I-CashAndCashEquivalentsFairValueDisclosure
I-ProceedsFromIssuanceOfCommonStock I-Revenues
I-BusinessCombinationRecognizedIdentifiableAssetsAcquiredAndLiabilitiesAssumedIntangibles
I-LettersOfCreditOutstandingAmount
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardEquityInstrumentsOtherThanOptionsGrantsInPeriodWeightedAverageGrantDateFairValue
I-OperatingLeasePayments I-LineOfCreditFacilityRemainingBorrowingCapacity I-PaymentsToAcquireBusinessesGross
I-TreasuryStockAcquiredAverageCostPerShare I-DeferredFinanceCostsNet I-StockRepurchaseProgramAuthorizedAmount1
I-InterestExpenseDebt I-ContractWithCustomerLiability I-OperatingLeaseExpense I-Depreciation
I-AllocatedShareBasedCompensationExpense I-LossContingencyAccrualAtCarryingValue
I-LineOfCreditFacilityUnusedCapacityCommitmentFeePercentage
I-SupplementalInformationForPropertyCasualtyInsuranceUnderwritersPriorYearClaimsAndClaimsAdjustmentExpense
I-OperatingLeaseLiability I-RevenueFromRelatedParties I-PaymentsToAcquireBusinessesNetOfCashAcquired
I-BusinessCombinationContingentConsiderationLiability I-LossContingencyDamagesSoughtValue
I-NumberOfOperatingSegments I-BusinessAcquisitionEquityInterestsIssuedOrIssuableNumberOfSharesIssued
I-OperatingLeaseRightOfUseAsset I-BusinessCombinationAcquisitionRelatedCosts I-UnrecognizedTaxBenefits
I-GuaranteeObligationsMaximumExposure I-RestructuringAndRelatedCostExpectedCost1
I-DefinedBenefitPlanContributionsByEmployer I-OperatingLeaseCost I-DerivativeFixedInterestRate I-Goodwill
I-GoodwillImpairmentLoss I-CommonStockCapitalSharesReservedForFutureIssuance
I-StockRepurchasedAndRetiredDuringPeriodShares
I-EmployeeServiceShareBasedCompensationTaxBenefitFromCompensationExpense I-IncomeLossFromEquityMethodInvestments
I-NumberOfReportableSegments I-LongTermDebtFairValue I-RepaymentsOfDebt I-ConcentrationRiskPercentage1
I-DebtInstrumentRedemptionPricePercentage I-CumulativeEffectOfNewAccountingPrincipleInPeriodOfAdoption I-SharePrice
I-UnrecognizedTaxBenefitsThatWouldImpactEffectiveTaxRate
I-ShareBasedCompensationArrangementByShareBasedPaymentAwardOptionsExercisesInPeriodTotalIntrinsicValue
I-EffectiveIncomeTaxRateContinuingOperations I-RevenueFromContractWithCustomerExcludingAssessedTax
I-StockRepurchaseProgramRemainingAuthorizedRepurchaseAmount1 I-LineOfCreditFacilityInterestRateAtPeriodEnd
I-ClassOfWarrantOrRightExercisePriceOfWarrantsOrRights1 I-OperatingLeasesRentExpenseNet I-LeaseAndRentalExpense
I-PublicUtilitiesRequestedRateIncreaseDecreaseAmount I-MinorityInterestOwnershipPercentageByParent
I-AssetImpairmentCharges I-DerivativeNotionalAmount
""".split()

T = {
    "IR": "DebtInstrumentInterestRateStatedPercentage",
    "LOC": "LineOfCreditFacilityMaximumBorrowingCapacity",
    "SPREAD": "DebtInstrumentBasisSpreadOnVariableRate1",
    "FACE": "DebtInstrumentFaceAmount",
    "SBC": "AllocatedShareBasedCompensationExpense",
    "AMORT": "AmortizationOfIntangibleAssets",
    "TAX": "EffectiveIncomeTaxRateContinuingOperations",
    "CONC": "ConcentrationRiskPercentage1",
    "MAT": "DebtInstrumentMaturityDate",
    "GW": "Goodwill",
    "REV": "Revenues",
    "OLC": "OperatingLeaseCost",
}

# token@X = B-X, token@+X = I-X continuing, token@~X = I-X without a B- (IOB2: starts its own span)
TRAIN = [
    "The Notes bear interest at 5.25@IR % per annum , payable semi-annually .",
    "On March 3 , 2020 , the Company entered into a revolving credit facility with a borrowing capacity of up to "
    "$ 750.0@LOC million .",
    "Borrowings under the term loan bear interest at LIBOR plus 2.75@SPREAD % .",
    "The Company issued $ 400.0@FACE million aggregate principal amount of 4.125@IR % senior notes due 2028 .",
    "Share-based compensation expense was $ 18.4@SBC million , $ 15.9@SBC million and $ 12.2@SBC million for the "
    "years ended December 31 , 2021 , 2020 and 2019 , respectively .",
    "The Company had no borrowings outstanding under the facility as of December 31 , 2021 .",
    "Amortization expense for intangible assets was $ 42.1@AMORT million and $ 39.8@AMORT million in 2021 and 2020 .",
    "Our effective tax rate was 21.4@TAX % in 2021 compared with 23.0@TAX % in 2020 .",
    "The credit agreement provides for a $ 1.5@LOC billion revolving facility and loans bearing interest at the "
    "base rate plus 0.50@SPREAD % .",
    "One customer accounted for 14@CONC % of net revenue .",
    "The 2026 Notes mature on March@MAT 15@+MAT ,@+MAT 2026@+MAT and bear interest at 3.875@IR % .",
    "Goodwill was $ 612.3@GW million at year end .",
    "Revenues increased to $ 2,481@REV million .",
    "Operating lease cost was $ 9.6@OLC million .",
    "The Company may borrow up to $ 300@LOC million under the facility , with interest at SOFR plus 1.25@SPREAD % "
    "and an unused fee .",
    "The debentures have a face value of $ 250@FACE million and an interest rate of 6.00@IR % .",
    "The effective income tax rate for 2021 was 19.8@TAX % .",
    "Amortization of intangible assets totaled $ 7.7@AMORT million .",
    "The term loan matures in 2029@~MAT and carries interest at LIBOR plus 3.00@SPREAD % .",
    "The Company issued $ 500@FACE million of notes with a coupon of 2.50@IR % and a $ 200@FACE million term loan .",
    "Maximum borrowing capacity under the ABL facility is $ 125@LOC million , and advances bear interest at a "
    "margin of 1.75@SPREAD % .",
    "Goodwill of $ 95@GW million and revenues of $ 310@REV million were attributed to the segment .",
    "Customer A represented 11@CONC % of accounts receivable .",
    "Borrowing capacity under the new facility increased to $ 900@LOC million ; the notes carry a fixed rate of "
    "7.125@IR % .",
    "The Company recorded no impairment charges in 2021 .",
]
TEST = [
    "The senior notes bear interest at a rate of 4.75@IR % .",
    "The revolving credit facility provides for borrowings of up to $ 2.0@LOC billion .",
    "Loans under the facility bear interest at the Eurodollar rate plus 1.50@SPREAD % .",
    "In May 2021 , the Company issued $ 650@FACE million of 3.25@IR % notes .",
    "Stock-based compensation expense of $ 33.5@SBC million was recognized in 2021 .",
    "Revenues were $ 1,204@REV million .",
    "Amortization of acquired intangibles was $ 21.0@AMORT million .",
    "The effective tax rate decreased to 17.9@TAX % .",
    "Two distributors each accounted for more than 10@CONC % of sales .",
    "The 2030 Notes will mature on June@MAT 1@+MAT ,@+MAT 2030@+MAT .",
    "Goodwill totaled $ 1,118@GW million , and operating lease cost was $ 14@OLC million .",
    "No amounts were drawn on the line of credit during the quarter .",
    "The term loan bears interest at LIBOR plus 2.25@SPREAD % , and the Company 's borrowing capacity is "
    "$ 400@LOC million .",
    "Principal of $ 300@FACE million is due in 2027 with an annual rate of 5.50@IR % .",
]


def parse(sentence: str) -> tuple[list[str], list[int]]:
    tokens, tags = [], []
    for item in sentence.split(" "):
        tok, _, mark = item.partition("@")
        if not mark:
            tag = "O"
        elif mark[0] in "+~":
            tag = "I-" + T[mark[1:]]
        else:
            tag = "B-" + T[mark]
        tokens.append(tok)
        tags.append(LABEL_NAMES.index(tag))
    return tokens, tags


def write_parquet(out: Path, split: str, sentences: list[str], first_id: int) -> None:
    import datasets

    seq = getattr(datasets, "List", None) or datasets.Sequence
    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "tokens": seq(datasets.Value("string")),
            "ner_tags": seq(datasets.ClassLabel(names=LABEL_NAMES)),
        }
    )
    rows = [parse(s) for s in sentences]
    ds = datasets.Dataset.from_dict(
        {
            "id": [str(first_id + i) for i in range(len(rows))],
            "tokens": [r[0] for r in rows],
            "ner_tags": [r[1] for r in rows],
        },
        features=features,
    )
    path = out / CONFIG / split / "0000.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    ds.to_parquet(str(path))


VALIDATION = [
    "The notes carry a fixed coupon of 6.25@IR % .",
    "Goodwill increased to $ 88@GW million .",
    "No borrowings were outstanding at the end of the period .",
]
IDS = {"train": 0, "validation": 50, "test": 95}  # first id of each split


def jsonl_lines(sentences: list[str], first_id: int) -> str:
    out = []
    for i, sentence in enumerate(sentences):
        tokens, tags = parse(sentence)
        out.append(json.dumps({"id": first_id + i, "tokens": tokens, "ner_tags": [LABEL_NAMES[t] for t in tags]}))
    return "\n".join(out) + "\n"


def write_published(out: Path) -> None:
    """finer139.zip (the three JSONL files at its root) + dataset_infos.json, as on the hub's main branch."""
    splits = {"train": TRAIN, "validation": VALIDATION, "test": TEST}
    with zipfile.ZipFile(out / "finer139.zip", "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for split, sentences in splits.items():
            info = zipfile.ZipInfo(f"{split}.jsonl", date_time=(2022, 3, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, jsonl_lines(sentences, IDS[split]))
    seq = {"length": -1, "id": None, "_type": "Sequence"}
    infos = {
        "finer-139": {
            "description": "Synthetic stand-in for FiNER-139 written by lm-eval-enterprise (not the real data).",
            "citation": "",
            "homepage": "https://github.com/nlpaueb/finer",
            "license": "cc-by-sa-4.0",
            "features": {
                "id": {"dtype": "int32", "id": None, "_type": "Value"},
                "tokens": {"feature": {"dtype": "string", "id": None, "_type": "Value"}, **seq},
                "ner_tags": {
                    "feature": {
                        "num_classes": len(LABEL_NAMES),
                        "names": LABEL_NAMES,
                        "id": None,
                        "_type": "ClassLabel",
                    },
                    **seq,
                },
            },
            "builder_name": "finer139",
            "config_name": "finer-139",
            "splits": {
                split: {"name": split, "num_examples": len(sentences), "dataset_name": "finer139"}
                for split, sentences in splits.items()
            },
        }
    }
    (out / "dataset_infos.json").write_text(json.dumps(infos, indent=2) + "\n")


def write(out: Path) -> None:
    assert len(LABEL_NAMES) == 279 and len(set(LABEL_NAMES)) == 279
    write_parquet(out, "train", TRAIN, IDS["train"])
    write_parquet(out, "test", TEST, IDS["test"])
    write_published(out)
    kept = {"train": 21, "test": 12}  # sentences with a top-10 entity (counted by hand; checked by every load)
    write_manifest(
        out,
        "finer139",
        "Synthetic 10-K sentences written for lm-eval-enterprise (not from FiNER-139) by "
        "tasks/finance/finer139/make_fixture.py, in both published layouts holding the same sentences: "
        "finer139.zip (train/validation/test.jsonl with string IOB2 tags) + dataset_infos.json as on the "
        "hub's main branch (read first), and the auto-converted parquet files "
        "finer-139/{train,test}/0000.parquet (id, tokens, ner_tags as ClassLabel ids with the 279 names in "
        "the files' huggingface schema metadata). raw_rows = sentences before the top-10 filter; "
        "expected_rows = after it (test: all 12 kept sentences, fewer than the 1,000 sampled from the "
        "real data).",
        kept,
        raw_rows={"train": len(TRAIN), "test": len(TEST)},
    )


if __name__ == "__main__":
    generator_main(write)
