class SplitTest : public NVFuserTest, public testing::WithParamInterface<int64_t> {};

TEST_P(SplitTest, Rows) {
  const int64_t n = GetParam();
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = makeContigTensor(2);
  fusion->addInput(tv0);
  TensorView* tv1 = set(tv0);
  fusion->addOutput(tv1);
  tv1->split(0, n);
}

INSTANTIATE_TEST_SUITE_P(, SplitTest, testing::Values(GetParam() + 1));
