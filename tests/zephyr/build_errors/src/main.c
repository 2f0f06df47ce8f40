/* The model is only built, never run: the tests look at the build. */
#include <model.h>

int main(void)
{
	return model_invoke(NULL);
}
